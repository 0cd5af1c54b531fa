"""User-facing failures; each carries the exit status the CLI returns;
and how user text is shown in their lines (printable())."""
import re


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


class StoreError(SsbenchError):
    """A store failed (docs/internals.rst, "Stores")."""
    exit_status = 1


class SwiftError(StoreError):
    exit_status = 1


class S3Error(StoreError):
    exit_status = 1


class TransportError(SsbenchError):
    exit_status = 1


class NoWorkersError(SsbenchError):
    exit_status = 1


class Interrupted(SsbenchError):
    exit_status = 130


# Characters of user text (a name, a path, a value) that one line of an
# error or of the terminal shows: past them, an ellipsis and the length.
SHOWN_CHARS = 200

# Control characters, and surrogates that make no pair: Python 2 keeps a
# character beyond U+FFFF as a pair, Python 3 never does.
_ESCAPED = re.compile(
    u'[\x00-\x1f\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|'
    u'(?<![\ud800-\udbff])[\udc00-\udfff]' if str is bytes else
    u'[\x00-\x1f\x7f-\x9f\ud800-\udfff]')
_ESCAPED_BYTES = re.compile(b'[\x00-\x1f\x7f]')


def _escape(match):
    code = ord(match.group())
    return u'\\x%02x' % code if code < 0x100 else u'\\u%04x' % code


def _escape_byte(match):
    return ('\\x%02x' % ord(match.group())).encode('ascii')


def printable(text, limit=SHOWN_CHARS):
    """User text as a line shows it: control characters (escape
    sequences, newlines) and lone surrogates escaped as \\x1b or \\ud800,
    and cut to `limit` characters (None: not cut) with '... (N
    characters)'.  Ordinary text, and what is not text, come back
    unchanged."""
    if not isinstance(text, (bytes, type(u''))):
        return text
    if limit is not None and len(text) > limit:
        more = u'... (%d characters)' % len(text)
        text = text[:limit] + (
            more.encode('ascii') if isinstance(text, bytes) else more)
    if isinstance(text, bytes):
        return _ESCAPED_BYTES.sub(_escape_byte, text)
    return _ESCAPED.sub(_escape, text)
