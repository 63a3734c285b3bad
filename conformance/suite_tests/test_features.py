"""Every packaged ``.feature`` file, bound to the step modules the plugin loads."""

from __future__ import annotations

from pytest_bdd import scenarios

from conformance.suite import features_dir

scenarios(str(features_dir()))
