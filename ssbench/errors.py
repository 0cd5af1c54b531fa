"""User-facing failures; each carries the exit status the CLI returns."""


class SsbenchError(Exception):
    """Base of every error the CLI reports as one line."""
    exit_status = 1


class UsageError(SsbenchError):
    exit_status = 2


class ScenarioError(SsbenchError):
    exit_status = 2


class AuthConfigError(SsbenchError):
    exit_status = 2


class StatsFileError(SsbenchError):
    exit_status = 1


class SwiftAuthError(SsbenchError):
    exit_status = 1


class SwiftError(SsbenchError):
    exit_status = 1


class TransportError(SsbenchError):
    exit_status = 1


class NoWorkersError(SsbenchError):
    exit_status = 1


class Interrupted(SsbenchError):
    exit_status = 130
