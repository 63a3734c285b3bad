"""The pytest module that binds every packaged feature (run by ``conformance run``)."""
