"""The text error breakdown of report-scenario --errors."""
from __future__ import absolute_import, division, print_function

from ssbench.report.render.errortable import (error_lines, event_lines,
                                              render_error_table,
                                              retry_lines)


def doc(total, causes, recorded=True):
    return {'errors': {'recorded': recorded, 'total': total,
                       'causes': causes}}


def cause(operation, name, count, trans_id=None):
    return {'operation': operation, 'cause': name, 'count': count,
            'first_seen': 1700000000.5, 'last_seen': 1700000060.0,
            'example_trans_id': trans_id, 'example_message': 'x'}


def test_no_errors():
    assert error_lines(doc(0, [])) == ['', 'Errors by cause',
                                       '       No errors.']


def test_one_row_per_cause_with_share_times_and_example():
    lines = error_lines(doc(4, [
        cause('read', 'HTTP 404', 3, 'tx-abc'),
        cause('create', 'ConnectionRefusedError', 1)]))
    assert lines[1] == 'Errors by cause'
    assert lines[2].split() == ['Operation', 'Cause', 'Count', 'Share',
                                'First', 'seen', 'Last', 'seen', 'Example',
                                'TX', 'ID']
    assert lines[3].split() == [
        'read', 'HTTP', '404', '3', '75.0%', '2023-11-14', '22:13:20',
        'UTC', '2023-11-14', '22:14:20', 'UTC', 'tx-abc']
    assert lines[4].endswith('UTC')       # no example: nothing after
    assert 'ConnectionRefusedError' in lines[4] and '25.0%' in lines[4]
    assert lines[5] == '       4 failed requests'
    # Columns line up whatever the cause's length.
    assert lines[3].index('75.0%') == lines[4].index('25.0%')


def test_long_causes_are_clipped_and_old_files_say_not_recorded():
    lines = error_lines(doc(2, [cause('read', 'not recorded', 1),
                                cause('read', 'X' * 40, 1)],
                            recorded=False))
    assert 'not recorded' in lines[2]
    assert 'X' * 21 + '...' in lines[5] and 'X' * 22 not in lines[5]


def test_an_s3_code_beside_its_status_is_shown_whole():
    swift = error_lines(doc(2, [cause('read', 'HTTP 403', 1),
                                cause('read', 'X' * 40, 1)]))
    s3 = dict(cause('read', 'HTTP 403 SignatureDoesNotMatch', 1),
              status=403, error_class='SignatureDoesNotMatch')
    lines = error_lines(doc(2, [s3, dict(cause('create', 'HTTP 503', 1),
                                         status=503)]))
    assert lines[3].split()[:5] == ['read', 'HTTP', '403',
                                    'SignatureDoesNotMatch', '1']
    # The column widens from 24 to its 30 characters; rows line up.
    assert lines[3].index('50.0%') == lines[4].index('50.0%') == \
        swift[3].index('50.0%') + 6
    # Without one, the Swift run's columns and clipping as ever.
    assert 'X' * 21 + '...' in swift[4]


def test_events_follow_the_causes():
    document = doc(0, [])
    assert event_lines(document) == []
    document['events'] = [
        {'time': 12.5, 'at': 1700000012.5, 'kind': 'mark', 'worker': None,
         'text': 'pulled disk 3'},
        {'time': None, 'at': 1700000020.0, 'kind': 'worker_lost',
         'worker': 2, 'text': None}]
    assert event_lines(document) == [
        '', 'Run events',
        '            Time  At                       Event',
        '         +12.5 s  2023-11-14 22:13:32 UTC  mark: pulled disk 3',
        '             N/A  2023-11-14 22:13:40 UTC  worker 2 lost']
    written = []

    class Out(object):
        write = written.append

    render_error_table(document, Out())
    assert ''.join(written).endswith('worker 2 lost\n')
    assert 'No errors.' in ''.join(written)


def test_retries_by_cause_with_those_that_met_an_expired_token():
    document = doc(0, [])
    assert retry_lines(document) == []
    document['retries'] = {'total': 0, 'auth': 0, 'causes': []}
    assert retry_lines(document) == []
    document['retries'] = {'total': 4, 'auth': 3, 'causes': [
        {'operation': 'read', 'cause': 'HTTP 401', 'count': 3,
         'auth': True},
        {'operation': 'create', 'cause': 'ConnectionResetError',
         'count': 1, 'auth': False}]}
    assert retry_lines(document) == [
        '', 'Retries by cause',
        '       Operation Cause                      Count  Share',
        '       read      HTTP 401                       3  75.0%',
        '       create    ConnectionResetError           1  25.0%',
        '       4 retries',
        "       3 retries met an expired token (not the cluster's errors)"]
    written = []

    class Out(object):
        write = written.append

    render_error_table(document, Out())
    text = ''.join(written)
    assert text.index('No errors.') < text.index('Retries by cause')


def test_retries_of_the_cluster_alone_say_nothing_of_tokens():
    document = doc(0, [])
    document['retries'] = {'total': 2, 'auth': 0, 'causes': [
        {'operation': 'read', 'cause': 'HTTP 503', 'count': 2,
         'auth': False}]}
    assert retry_lines(document)[-1] == '       2 retries'
