"""A small reader and writer of the XML that S3 speaks, safe on hostile
input: no DTD is read and no entity expanded (a DOCTYPE or an entity other
than XML's five is refused), so no "billion laughs" and no external
entity, on Python 2.7 as on 3.x.

Like errorbody.py it uses no XML library, only regular expressions: S3's
bodies are a few elements deep, without mixed content, so a strict
tokenizer does.  parse() gives a tree of Node (tags without their
namespace prefix, text unescaped, line ends made '\\n' as any XML parser
makes them); what it cannot read is BadBody.  escape() writes text for
the request bodies.
"""
from __future__ import absolute_import

import re

from ssbench.compat import PY2, text_type

if PY2:  # pragma: no cover - exercised by the 2.7 run of the suite
    _chr = unichr  # noqa: F821
else:
    _chr = chr

MAX_DEPTH = 32
# The namespace of S3's own documents.
XMLNS = 'http://s3.amazonaws.com/doc/2006-03-01/'
_NAME = r'[A-Za-z_][-\w.]*(?::[A-Za-z_][-\w.]*)?'
_ATTRS = r'''(?:\s+[^\s=<>/'"]+\s*=\s*(?:"[^"<]*"|'[^'<]*'))*'''
# One piece of markup (or none) and the text after it: one match per
# element end, half as many as a token each.
_TOKEN = re.compile(
    r'(?:(<!--.*?-->|<\?.*?\?>)'                          # 1 comment, PI
    r'|<!\[CDATA\[(.*?)\]\]>'                              # 2 CDATA text
    r'|<(/?)(' + _NAME + r')(' + _ATTRS + r')\s*(/?)>)?'  # 3-6 a tag
    r'([^<]*)',                                           # 7 text after
    re.S | re.U)
_REF = re.compile(r'(amp|lt|gt|quot|apos|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});')
_NAMED = {'amp': u'&', 'lt': u'<', 'gt': u'>', 'quot': u'"', 'apos': u"'"}
# Characters that XML 1.0 cannot carry, not even as a reference.
_NOT_XML = re.compile(u'[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]')


class BadBody(ValueError):
    """A body that is not the XML expected; `code` and `message` are the
    S3 error's when the body was an <Error> instead."""

    def __init__(self, text, code=None, message=None):
        ValueError.__init__(self, text)
        self.code = code
        self.message = message


class Node(object):
    """An element: its local tag, its text and its child elements."""

    __slots__ = ('tag', 'text', 'children')

    def __init__(self, tag):
        self.tag = tag
        self.text = u''
        self.children = []

    def __repr__(self):
        return 'Node(%r)' % self.tag

    def find(self, tag):
        """The first child of that tag, or None."""
        for child in self.children:
            if child.tag == tag:
                return child
        return None

    def findall(self, tag):
        """Every child of that tag, in order."""
        return [child for child in self.children if child.tag == tag]

    def findtext(self, tag, default=None):
        """The text of the first child of that tag, or `default`."""
        child = self.find(tag)
        return default if child is None else child.text

    def findflag(self, tag):
        """The xsd:boolean of the first child of that tag (False without
        one); BadBody for other text than true or false."""
        flag = self.findtext(tag, u'false').strip()
        if flag not in (u'true', u'false'):
            raise BadBody('%s is %r, not true or false' % (tag, flag))
        return flag == u'true'


def _char(ref):
    if ref in _NAMED:
        return _NAMED[ref]
    point = int(ref[2:], 16) if ref[1] == 'x' else int(ref[1:])
    try:
        char = _chr(point)
    except (ValueError, OverflowError):
        char = None
    if char is None or not point or _NOT_XML.match(char) or \
            0xd800 <= point <= 0xdfff:
        raise BadBody('character reference &%s; is no XML character' % ref)
    return char


def unescape(text):
    """Text with its line ends made '\\n' and its references replaced;
    BadBody for an '&' that starts none of XML's own."""
    if '\r' in text:
        text = text.replace(u'\r\n', u'\n').replace(u'\r', u'\n')
    if '&' not in text:
        return text
    pieces = text.split(u'&')
    out = [pieces[0]]
    for piece in pieces[1:]:
        ref = _REF.match(piece)
        if ref is None:
            raise BadBody('entity reference &%s not read (only XML\'s own '
                          'and character references are)' % piece[:12])
        out.append(_char(ref.group(1)))
        out.append(piece[ref.end():])
    return u''.join(out)


def _local(name):
    return name.rpartition(':')[2]


def _decode(body):
    try:
        return body.decode('utf-8-sig')   # a byte-order mark is no text
    except UnicodeError as exc:
        raise BadBody('body is not UTF-8: %s' % exc)


def parse(body, expect=None):
    """The root Node of an XML body (bytes).  With `expect` (a root tag),
    BadBody unless the root is that: for an S3 <Error>, one that carries
    its code and message."""
    text = _decode(body)
    stack = []
    root = None
    pos, end = 0, len(text)
    match = _TOKEN.match
    while pos < end:
        token = match(text, pos)
        if token.end() == pos:      # a '<' that starts nothing read
            what = 'a DTD or declaration' if text.startswith('<!', pos) \
                else 'markup'
            raise BadBody('%s not read at offset %d: %r' % (
                what, pos, text[pos:pos + 20]))
        pos = token.end()
        closing, tag, empty, data = token.group(3, 4, 6, 7)
        if tag:
            if ':' in tag:
                tag = _local(tag)
            if closing:
                if not stack or stack[-1].tag != tag or empty:
                    raise BadBody('unexpected </%s> at offset %d' % (
                        tag, token.start()))
                stack.pop()
            else:
                if root is not None and not stack:
                    raise BadBody('a second root element <%s>' % tag)
                if len(stack) >= MAX_DEPTH:
                    raise BadBody('elements nested over %d deep'
                                  % MAX_DEPTH)
                node = Node(tag)
                if stack:
                    stack[-1].children.append(node)
                else:
                    root = node
                if not empty:
                    stack.append(node)
        elif token.group(2) is not None:   # CDATA: no reference in it
            if not stack:
                raise BadBody('CDATA outside the root element')
            stack[-1].text += token.group(2).replace(
                u'\r\n', u'\n').replace(u'\r', u'\n')
        if not data:
            continue
        if stack:
            stack[-1].text += unescape(data)
        elif data.strip():
            raise BadBody('text outside the root element: %r' % data[:20])
    if root is None or stack:
        raise BadBody('no root element' if root is None
                      else 'body ends inside <%s>' % stack[-1].tag)
    if expect is not None and root.tag != expect:
        if root.tag == 'Error':
            code, message = root.findtext('Code'), root.findtext('Message')
            raise BadBody('S3 error %s: %s' % (code, message), code,
                          message)
        raise BadBody('<%s> where <%s> was expected' % (root.tag, expect))
    return root


def _text(value):
    return value.decode('utf-8') if isinstance(value, bytes) else \
        text_type(value)


def escape(value):
    """Text (or, on Python 2, UTF-8 bytes) as an element's XML content;
    '\\r' as a reference, which a parser would otherwise make '\\n';
    ValueError for a character that XML cannot carry."""
    text = _text(value)
    bad = _NOT_XML.search(text)
    if bad:
        raise ValueError('%r holds %r, which XML cannot carry' % (
            text, bad.group()))
    return text.replace(u'&', u'&amp;').replace(u'<', u'&lt;') \
        .replace(u'>', u'&gt;').replace(u'\r', u'&#13;')
