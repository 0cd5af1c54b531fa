"""ssbench.store.connpool: what a pool says of its URL before any
connection."""
from __future__ import absolute_import, division, print_function

import pytest

from ssbench.errors import StoreError
from ssbench.store.connpool import ConnectionPool


def host(url):
    return ConnectionPool(url, 1, None, None).host_header


def test_the_host_header_is_the_one_its_connections_send():
    assert host('http://127.0.0.1:8080') == '127.0.0.1:8080'
    assert host('http://s3.example.com:80') == 's3.example.com'
    assert host('https://s3.example.com') == 's3.example.com'
    assert host('https://[::1]:9000') == '[::1]:9000'


def test_a_url_without_a_host_is_refused():
    with pytest.raises(StoreError):
        ConnectionPool('ftp://h/x', 1, None, None)
