"""The privacy corpus's families beyond its first 58: every HTTP authorization scheme, and the
token formats the well-kept detectors' rule sets name (issue 29).

Why: the corpus measures "no secret leaves" only for the families it holds.  Issue 29 found a
whole class missing: an ``Authorization`` header whose scheme is neither ``Bearer`` nor ``Basic``.
So the authorization schemes here are the ones of the IANA HTTP Authentication Scheme Registry
(Concealed, Digest, DPoP, GNAP, HOBA, Mutual, Negotiate, OAuth, PrivateToken, SCRAM-SHA-256,
vapid) plus those APIs use in practice (AWS Signature Version 4, NTLM, Hawk, ``Token`` and
``Api-Token``, ``ApiKey``, Okta's ``SSWS``, Splunk's, a scheme-less value, a proxy's Basic).  The
token formats are the families of gitleaks' and detect-secrets' rule lists that the first 58 did
not have; each is written from the format's published shape (prefix, alphabet, length), read
as facts from those rule lists, never copied.  Every value is random and, where the alphabet
allows, spells ``FAKE``: none is a real credential.
"""

from __future__ import annotations

import base64
import random
import string
import uuid
from typing import Final

from reference.fixturegen.fake_values import (
    B64,
    LOWER_HEX,
    URLSAFE,
    FakeSecret,
    Maker,
    fake,
    in_context,
    plain,
)
from reference.fixturegen.vocabulary import B62, UPPER_ALNUM, pick

LOWER_ALNUM: Final = string.ascii_lowercase + string.digits


def _header(family: str, scheme: str, build_credentials: Maker, *, name: str = "Authorization") -> Maker:
    """``<name>: <scheme> <credentials>``; the sensitive part is the credentials' own."""

    def make(rng: random.Random) -> FakeSecret:
        inner = build_credentials(rng)
        prefix = f"{scheme} " if scheme else ""
        return FakeSecret(family, f"{name}: {prefix}{inner.text}", inner.sensitive)

    return make


def _token(alphabet: str, count: int, head: str = "") -> Maker:
    def make(rng: random.Random) -> FakeSecret:
        value = head + fake(rng, alphabet, count)
        return FakeSecret("", value, value)

    return make


def _params(*pairs: tuple[str, str], secret: str) -> Maker:
    """``name="value", ...`` auth-params; ``pairs`` give each value's alphabet spec ``kind:len``;
    the parameter named ``secret`` is the sensitive one."""

    def make(rng: random.Random) -> FakeSecret:
        parts, sensitive = [], ""
        for key, spec in pairs:
            kind, _, size = spec.partition(":")
            alphabet = {"hex": LOWER_HEX, "b62": B62, "b64": B64, "url": URLSAFE, "digits": string.digits}.get(kind)
            value = spec if alphabet is None else fake(rng, alphabet, int(size))
            if kind == "b64":
                value += "="
            if key == secret:
                sensitive = value
            parts.append(f'{key}="{value}"')
        return FakeSecret("", ", ".join(parts), sensitive)

    return make


def _aws4(rng: random.Random) -> FakeSecret:
    signature = pick(rng, LOWER_HEX, 64)
    text = (f"Credential=AKIAFAKE{pick(rng, UPPER_ALNUM, 12)}/20260101/us-east-1/s3/aws4_request, "
            f"SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature={signature}")
    return FakeSecret("", text, signature)


def _vapid(rng: random.Random) -> FakeSecret:
    head = base64.urlsafe_b64encode(b'{"typ":"JWT","alg":"ES256"}').decode().rstrip("=")
    body = base64.urlsafe_b64encode(b'{"aud":"https://push.example.test","exp":1767225600}').decode().rstrip("=")
    signature = fake(rng, URLSAFE, 86)
    return FakeSecret("", f"t={head}.{body}.{signature}, k=B{pick(rng, URLSAFE, 86)}", signature)


def _basic(rng: random.Random) -> FakeSecret:
    value = base64.b64encode(f"proxy-user:FAKE-{pick(rng, B62, 16)}".encode()).decode()
    return FakeSecret("", value, value)


def _unscoped(rng: random.Random) -> FakeSecret:
    value = "sha256~" + fake(rng, URLSAFE, 43)
    return FakeSecret("", value, value[len("sha256~"):])


#: One family per authorization scheme (Bearer and Basic are the first 58's).
AUTHORIZATION_FAMILIES: Final[dict[str, Maker]] = {
    "auth-token": _header("auth-token", "Token", _token(B62, 40)),
    "auth-api-token": _header("auth-api-token", "Api-Token", _token(LOWER_HEX, 40)),
    "auth-apikey": _header("auth-apikey", "ApiKey", _token(URLSAFE, 48)),
    "auth-digest": _header("auth-digest", "Digest", _params(
        ("username", "deploy"), ("realm", "api@example.test"), ("nonce", "hex:34"), ("uri", "/v1/deploy"),
        ("qop", "auth"), ("nc", "00000001"), ("cnonce", "hex:16"), ("response", "hex:32"), ("opaque", "hex:32"),
        secret="response")),
    "auth-aws4-hmac-sha256": _header("auth-aws4-hmac-sha256", "AWS4-HMAC-SHA256", _aws4),
    "auth-negotiate": _header("auth-negotiate", "Negotiate", _token(B64, 160, "YIIG")),
    "auth-ntlm": _header("auth-ntlm", "NTLM", _token(B64, 120, "TlRMTVNTUAAD")),
    "auth-okta-ssws": _header("auth-okta-ssws", "SSWS", _token(URLSAFE, 40, "00")),
    "auth-splunk": _header("auth-splunk", "Splunk", lambda r: FakeSecret("", (v := str(uuid.UUID(int=r.getrandbits(128), version=4))), v)),
    "auth-oauth1": _header("auth-oauth1", "OAuth", _params(
        ("oauth_consumer_key", "b62:25"), ("oauth_nonce", "b62:42"), ("oauth_signature", "b64:27"),
        ("oauth_signature_method", "HMAC-SHA1"), ("oauth_timestamp", "1767225600"), ("oauth_token", "url:50"),
        ("oauth_version", "1.0"), secret="oauth_token")),
    "auth-hawk": _header("auth-hawk", "Hawk", _params(
        ("id", "dh37fgj492je"), ("ts", "1767225600"), ("nonce", "b62:6"), ("mac", "b64:43"), secret="mac")),
    "auth-hoba": _header("auth-hoba", "HOBA", _params(("result", "url:96"), secret="result")),
    "auth-mutual": _header("auth-mutual", "Mutual", _params(
        ("sid", "digits:10"), ("nonce-number", "1"), ("verification", "hex:64"), secret="verification")),
    "auth-scram-sha-256": _header("auth-scram-sha-256", "SCRAM-SHA-256", _params(
        ("sid", "url:16"), ("data", "b64:75"), secret="data")),
    "auth-vapid": _header("auth-vapid", "vapid", _vapid),
    "auth-dpop": _header("auth-dpop", "DPoP", _token(URLSAFE, 43)),
    "auth-gnap": _header("auth-gnap", "GNAP", _token(UPPER_ALNUM, 24)),
    "auth-privatetoken": _header("auth-privatetoken", "PrivateToken", _params(("token", "url:96"), secret="token")),
    "auth-concealed": _header("auth-concealed", "Concealed", _params(("tok", "url:64"), secret="tok")),
    "auth-no-scheme": _header("auth-no-scheme", "", _unscoped),
    "auth-proxy-basic": _header("auth-proxy-basic", "Basic", _basic, name="Proxy-Authorization"),
}

#: Token formats named by gitleaks' and detect-secrets' rule lists, not among the first 58.
DETECTOR_FAMILIES: Final[dict[str, Maker]] = {
    "alibaba-access-key-id": plain("alibaba-access-key-id", lambda r: "LTAI" + fake(r, B62, 20)),
    "artifactory-api-key": plain("artifactory-api-key", lambda r: "AKCp8" + fake(r, B62, 68)),
    "atlassian-api-token": plain("atlassian-api-token", lambda r: "ATATT3x" + fake(r, URLSAFE, 185), public="ATATT3x"),
    "clojars-api-token": plain("clojars-api-token", lambda r: "CLOJARS_" + fake(r, LOWER_ALNUM, 60), public="CLOJARS_"),
    "contentful-pat": plain("contentful-pat", lambda r: "CFPAT-" + fake(r, URLSAFE, 43), public="CFPAT-"),
    "doppler-token": plain("doppler-token", lambda r: "dp.pt." + fake(r, LOWER_ALNUM, 43), public="dp.pt."),
    "duffel-token": plain("duffel-token", lambda r: "duffel_live_" + fake(r, URLSAFE, 43), public="duffel_live_"),
    "dynatrace-token": plain("dynatrace-token", lambda r: f"dt0c01.{fake(r, UPPER_ALNUM, 24)}.{pick(r, UPPER_ALNUM, 64)}", public="dt0c01."),
    "easypost-api-key": plain("easypost-api-key", lambda r: "EZAK" + fake(r, B62, 54)),
    "flutterwave-secret": plain("flutterwave-secret", lambda r: f"FLWSECK_TEST-{pick(r, LOWER_HEX, 32)}-X", public="FLWSECK_TEST-"),
    "flyio-token": plain("flyio-token", lambda r: "fo1_" + fake(r, URLSAFE, 43), public="fo1_"),
    "frameio-token": plain("frameio-token", lambda r: "fio-u-" + fake(r, URLSAFE, 64), public="fio-u-"),
    "gitlab-runner-token": plain("gitlab-runner-token", lambda r: "glrt-" + fake(r, URLSAFE, 20), public="glrt-"),
    "grafana-service-account": plain("grafana-service-account", lambda r: f"glsa_{fake(r, B62, 32)}_{pick(r, LOWER_HEX, 8)}", public="glsa_"),
    "groq-api-key": plain("groq-api-key", lambda r: "gsk_" + fake(r, B62, 52), public="gsk_"),
    "hashicorp-tf-token": plain("hashicorp-tf-token", lambda r: f"{pick(r, LOWER_ALNUM, 14)}.atlasv1.{fake(r, URLSAFE, 67)}"),
    "langsmith-api-key": plain("langsmith-api-key", lambda r: f"lsv2_pt_{pick(r, LOWER_HEX, 32)}_{pick(r, LOWER_HEX, 10)}", public="lsv2_pt_"),
    "mailchimp-api-key": in_context("mailchimp-api-key", "MAILCHIMP_API_KEY={v}", lambda r: f"{pick(r, LOWER_HEX, 32)}-us{r.randint(10, 21)}"),
    "mapbox-secret-token": plain("mapbox-secret-token", lambda r: f"sk.eyJ1IjoiZmFrZSIsImEiOiJ{fake(r, B62, 20)}.{pick(r, URLSAFE, 22)}", public="sk.eyJ1IjoiZmFrZSIsImEiOiJ"),
    "new-relic-user-key": plain("new-relic-user-key", lambda r: "NRAK-" + fake(r, UPPER_ALNUM, 27), public="NRAK-"),
    "notion-token": plain("notion-token", lambda r: f"ntn_{pick(r, string.digits, 11)}{fake(r, B62, 35)}", public="ntn_"),
    "openai-legacy-key": plain("openai-legacy-key", lambda r: f"sk-{fake(r, B62, 20)}T3BlbkFJ{pick(r, B62, 20)}", public="sk-"),
    "planetscale-token": plain("planetscale-token", lambda r: "pscale_tkn_" + fake(r, URLSAFE, 43), public="pscale_tkn_"),
    "postman-api-key": plain("postman-api-key", lambda r: f"PMAK-{pick(r, LOWER_HEX, 24)}-{pick(r, LOWER_HEX, 34)}", public="PMAK-"),
    "prefect-api-key": plain("prefect-api-key", lambda r: "pnu_" + fake(r, B62, 36), public="pnu_"),
    "pulumi-token": plain("pulumi-token", lambda r: "pul-" + pick(r, LOWER_HEX, 40), public="pul-"),
    "readme-api-key": plain("readme-api-key", lambda r: "rdme_" + fake(r, LOWER_ALNUM, 70), public="rdme_"),
    "rubygems-api-key": plain("rubygems-api-key", lambda r: "rubygems_" + pick(r, LOWER_HEX, 48), public="rubygems_"),
    "sendinblue-api-key": plain("sendinblue-api-key", lambda r: f"xkeysib-{pick(r, LOWER_HEX, 64)}-{fake(r, B62, 16)}", public="xkeysib-"),
    "sentry-user-token": plain("sentry-user-token", lambda r: "sntryu_" + pick(r, LOWER_HEX, 64), public="sntryu_"),
    "shippo-api-token": plain("shippo-api-token", lambda r: "shippo_live_" + pick(r, LOWER_HEX, 40), public="shippo_live_"),
    "square-oauth-secret": plain("square-oauth-secret", lambda r: "sq0csp-" + fake(r, URLSAFE, 43), public="sq0csp-"),
    "typeform-pat": plain("typeform-pat", lambda r: "tfp_" + fake(r, URLSAFE, 59), public="tfp_"),
    "yandex-api-key": plain("yandex-api-key", lambda r: "AQVN" + fake(r, URLSAFE, 36)),
    "kubernetes-secret": in_context("kubernetes-secret", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-credentials\ntype: Opaque\ndata:\n  password: {v}",
                                    lambda r: base64.b64encode(f"FAKE-{pick(r, B62, 18)}".encode()).decode()),
    "django-secret-key": in_context("django-secret-key", "SECRET_KEY = '{v}'", lambda r: fake(r, string.ascii_lowercase + string.digits + "!@#%^&*(-_=+)", 50)),
    "softlayer-api-key": in_context("softlayer-api-key", "softlayer_api_key = {v}", lambda r: pick(r, LOWER_HEX, 64)),
    "ibm-cloud-iam-key": in_context("ibm-cloud-iam-key", "IBM_CLOUD_IAM_API_KEY={v}", lambda r: fake(r, URLSAFE, 44)),
}
