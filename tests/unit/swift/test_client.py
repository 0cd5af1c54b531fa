"""SwiftClient against an in-process fake Swift over real HTTP."""
from __future__ import absolute_import, division, print_function


import pytest

from ssbench.swift import client as swift
from ssbench.compat import PY2

pytestmark = pytest.mark.timeout(60)


# -- timed operations -------------------------------------------------------

# -- against canned responses (tests.unit.store.test_httpconn's server) ------

# -- retries that wait, and the time a failure took ---------------------------

# -- the response comes first -----------------------------------------------

def test_quote_leaves_plain_names_and_quotes_the_others_as_urllib():
    if PY2:
        from urllib import quote as urllib_quote
    else:
        from urllib.parse import quote as urllib_quote
    for name in [u'small_000123', u'a/b.c-d', u'', u'sp ace', u'caf\xe9',
                 u'til~de', u'per%cent', u'q?x#y', b'bytes name']:
        raw = name if isinstance(name, bytes) else name.encode('utf-8')
        got = swift.quote(name)
        assert got == urllib_quote(raw, safe='/')
        assert type(got) is str


# -- listings end, bodies read whole are bounded (docs/reliability.rst) ------
