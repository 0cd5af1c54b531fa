"""ssbench.report.compute.jsonsafe: anything a stats file holds becomes
strict JSON."""
from __future__ import absolute_import, division, print_function

from ssbench.report.compute.jsonsafe import jsonable


def test_jsonable_makes_anything_strict_json():
    nan, inf = float('nan'), float('inf')
    obj = {b'raw': b'caf\xc3\xa9', 3: (1, nan), u'x': [inf, -inf, b'\xff'],
           (1, 2): object, True: None, 2.5: 0, u'ok': [1.5, 2, u'y', False]}
    got = jsonable(obj)
    assert got[u'raw'] == u'caf\xe9'
    assert got[u'3'] == [1, None]
    assert got[u'x'] == [None, None, u'\ufffd']
    assert got[u'[1, 2]'] == u'%s' % (object,)
    assert got[u'true'] is None and got[u'2.5'] == 0
    assert got[u'ok'] == [1.5, 2, u'y', False]
    assert sorted(jsonable({None: 1, False: 2, 7: 3})) == [
        u'7', u'false', u'null']
