"""What a request reports: the names of failure causes, causes summed."""
from __future__ import absolute_import, division, print_function

import errno
import socket

from ssbench.errors import SwiftAuthError
from ssbench.store import httpconn, outcome


def test_error_class_names():
    assert outcome.error_class(socket.timeout('timed out')) == 'timeout'
    assert outcome.error_class(socket.error(errno.ETIMEDOUT, 'x')) == \
        'timeout'
    assert outcome.error_class(socket.error(errno.ECONNRESET, 'x')) == \
        'ConnectionResetError'
    assert outcome.error_class(socket.error(errno.EPIPE, 'x')) == \
        'BrokenPipeError'
    assert outcome.error_class(httpconn.StaleConnection('x')) == \
        'StaleConnection'
    assert outcome.error_class(httpconn.NoResponse('x')) == 'NoResponse'
    assert outcome.error_class(SwiftAuthError('x')) == 'SwiftAuthError'
    assert outcome.error_class(ValueError('x')) == 'ValueError'


def test_add_causes():
    assert outcome.add_causes(None, None) is None
    assert outcome.add_causes(None, {'503': 1}) == {'503': 1}
    causes = {'503': 1}
    assert outcome.add_causes(causes, {'503': 2, 'timeout': 1}) == {
        '503': 3, 'timeout': 1}
    assert causes == {'503': 1}        # not changed in place
