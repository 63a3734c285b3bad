"""Planted turns: the search term, the hard Unicode and the fake secrets every session carries.

Why: tests find these by their notable ids (``term_entry``, ``non_ascii_entry``, ``secret_user``,
``secret_entry``): recall must find the term, text must survive byte for byte, and privacy must
catch the credentials.
"""

from __future__ import annotations

from reference.fixturegen.messages import MessageBuilder
from reference.fixturegen.vocabulary import B62, UPPER_ALNUM, pick


class PlantedTurns(MessageBuilder):
    """Turns whose content the tests look for."""

    def turn_term(self) -> None:
        key = self.user(f"Why does the `{self.term}` feature flag disable the cache in src/cache.ts?")
        self.notable["term_entry"] = key
        self.notable["term"] = self.term
        self.assistant(
            [self.text("The flag short-circuits `flushCache`, so nothing is ever stored.")], "stop"
        )

    def turn_unicode(self) -> None:
        """Non-ASCII, astral, combining, RTL, U+2028/U+0085, BOM-in-text and a lone surrogate."""
        key = self.user(
            "Übersetze bitte die Fehlermeldung — und was bedeutet 「キャッシュが無効です」? 🤔", blocks=True
        )
        self.notable["non_ascii_entry"] = key
        call = self.tool_call("read", {"path": "docs/i18n/日本語.md"})
        self.assistant([self.thinking("Die Datei enthält Übersetzungen; ich lese sie."), call], "toolUse")
        body = ("# 日本語\nこんにちは、世界 👋🏽\n中文：缓存无效。\n한국어: 캐시가 잘못되었습니다.\n"
                "e\u0301 vs é, n\u0303, 👨\u200d👩\u200d👧\u200d👦, 🇯🇵, 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𓀀\n"
                "مرحبا بالعالم / שלום\nline\u2028separator, next\u0085line, \ufeffbom-inside, tab\tend\n"
                "truncated emoji: \ud83c")  # fmt: skip
        self.tool_result(call, body)
        if self.legacy != 1:  # bashExecution messages are not part of the v1 model here
            self.bash_execution("ls docs/i18n", "ja.md\nzh-Hans.md\nko.md\n\x1b[1;32mdone ✔\x1b[0m")
        self.assistant(
            [self.text("「キャッシュが無効です」 heißt „Der Cache ist ungültig“. ✅ Café, naïve, 𝟘𝟙𝟚 🚀")],
            "stop",
        )

    def turn_secret(self) -> None:
        """Clearly fake credentials in the places real ones leak: prompts, tool args and outputs."""
        r = self.rng
        ghp = "ghp_FAKE" + pick(r, B62, 32)
        sk = "sk-proj-FAKE" + pick(r, B62, 44)
        akia = "AKIAFAKE" + pick(r, UPPER_ALNUM, 12)
        aws_secret = "FAKE" + pick(r, B62 + "/+", 36)
        key_lines = "\n".join("FAKEKEY" + pick(r, B62 + "+/", 57) for _ in range(3))
        pem = f"-----BEGIN PRIVATE KEY-----\n{key_lines}\n-----END PRIVATE KEY-----"
        self.notable["secret_user"] = self.user(
            f"The deploy fails with 403. My token is {ghp}, can you check the config?"
        )
        call = self.tool_call("read", {"path": ".env"})
        self.assistant([call], "toolUse")
        env = (f"OPENAI_API_KEY={sk}\nAWS_ACCESS_KEY_ID={akia}\nAWS_SECRET_ACCESS_KEY={aws_secret}\n"
               f"GITHUB_TOKEN={ghp}\nDATABASE_URL=postgres://app:FAKE-pass-{pick(r, B62, 10)}@db.internal:5432/app")  # fmt: skip
        self.notable["secret_entry"] = self.tool_result(call, env)
        curl = self.tool_call(
            "bash",
            {"command": f'curl -s -H "Authorization: Bearer {sk}" https://api.example.invalid/v1/models'},
        )
        self.assistant([curl], "toolUse")
        self.tool_result(curl, '{"error":"invalid_api_key"}', details={"exitCode": 0})
        key_call = self.tool_call("bash", {"command": "cat deploy/key.pem"})
        self.assistant([key_call], "toolUse")
        self.tool_result(key_call, pem)
        self.assistant(
            [self.text("These credentials look exposed (.env, key.pem). Rotate them before deploying.")],
            "stop",
        )
        if self.legacy != 1:
            self.bash_execution("env | grep -i token", f"GITHUB_TOKEN={ghp}")
