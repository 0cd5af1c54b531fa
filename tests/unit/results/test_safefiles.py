"""Output paths that never destroy a file the user did not ask to replace."""
from __future__ import absolute_import, division, print_function

import gzip
import io
import os

import pytest

from ssbench.wire import protocol
from ssbench.results import safefiles
from ssbench.errors import SsbenchError, UsageError
from ssbench.results.safefiles import StatsPaths

HEADER = protocol.pack({'_scenario_data': {'name': 'x'}, 'name': 'x'})


def write(path, data):
    with io.open(str(path), 'wb') as fp:
        fp.write(data)
    return str(path)


def read(path):
    with io.open(str(path), 'rb') as fp:
        return fp.read()


def test_a_gz_path_is_the_gzip_file_itself():
    paths = StatsPaths('/r/x.stat.gz')
    assert (paths.plain, paths.final) == ('/r/x.stat', '/r/x.stat.gz')


def test_another_path_gives_path_gz_as_in_0_3_9():
    paths = StatsPaths('/r/my.scenario')
    assert (paths.plain, paths.final) == ('/r/my.scenario',
                                          '/r/my.scenario.gz')


def test_stats_files_plain_gzip_and_empty_are_recognised(tmpdir):
    assert safefiles.looks_like_stats(write(tmpdir.join('a'), HEADER))
    gz = gzip.GzipFile(str(tmpdir.join('b')), 'wb')
    gz.write(HEADER + protocol.pack([{'x': 1}]))
    gz.close()
    assert safefiles.looks_like_stats(str(tmpdir.join('b')))
    assert safefiles.looks_like_stats(write(tmpdir.join('c'), b''))


@pytest.mark.parametrize('data', [
    b'{"name": "scenario"}', b'\x1f\x8bnot gzip', b'\x80',
    protocol.pack({'name': 'x'}), protocol.pack(['_scenario_data'])])
def test_other_files_are_not_stats_files(tmpdir, data):
    assert not safefiles.looks_like_stats(write(tmpdir.join('f'), data))


def test_an_existing_scenario_file_is_refused_and_kept(tmpdir):
    scenario = write(tmpdir.join('my.scenario'), b'{"name": "keep me"}')
    with pytest.raises(UsageError) as info:
        StatsPaths(scenario).check()
    assert 'not an ssbench stats file' in str(info.value)
    assert '--force' in str(info.value)
    assert read(scenario) == b'{"name": "keep me"}'


def test_force_accepts_a_regular_file(tmpdir):
    scenario = write(tmpdir.join('my.scenario'), b'{}')
    StatsPaths(scenario).check(force=True)


def test_an_earlier_stats_file_may_be_replaced(tmpdir):
    write(tmpdir.join('x.stat.gz'), gzip_bytes(HEADER))
    StatsPaths(str(tmpdir.join('x.stat.gz'))).check()


def gzip_bytes(data):
    buf = io.BytesIO()
    gz = gzip.GzipFile(fileobj=buf, mode='wb')
    gz.write(data)
    gz.close()
    return buf.getvalue()


def test_the_plain_twin_of_a_gz_path_is_protected_too(tmpdir):
    write(tmpdir.join('x.stat'), b'precious notes')
    with pytest.raises(UsageError) as info:
        StatsPaths(str(tmpdir.join('x.stat.gz'))).check()
    assert str(tmpdir.join('x.stat')) in str(info.value)


@pytest.mark.parametrize('force', [False, True])
def test_non_regular_files_are_refused_even_with_force(tmpdir, force):
    fifo = str(tmpdir.join('fifo'))
    os.mkfifo(fifo)
    for path in (fifo, os.devnull, str(tmpdir)):
        with pytest.raises(UsageError) as info:
            StatsPaths(path).check(force=force)
        assert 'not a regular file' in str(info.value)


def test_a_symlink_is_not_a_regular_file(tmpdir):
    target = write(tmpdir.join('target'), HEADER)
    os.symlink(target, str(tmpdir.join('link')))
    with pytest.raises(UsageError):
        StatsPaths(str(tmpdir.join('link'))).check(force=True)


@pytest.mark.parametrize('path, message', [
    ('', 'empty path'),
    ('/tmp/a\0b', 'NUL'),
    ('/tmp/' + 'n' * 300, 'too long'),
    ('/nonexistent-dir/\0', 'NUL'),
    ('/tmp/.gz', 'names no file'),
])
def test_impossible_paths(path, message):
    with pytest.raises(UsageError) as info:
        StatsPaths(path).check()
    assert message in str(info.value)


def test_a_missing_directory_is_created(tmpdir):
    path = str(tmpdir.join('a', 'b', 'run.stat'))
    StatsPaths(path).check()
    assert os.path.isdir(str(tmpdir.join('a', 'b')))
    assert os.listdir(str(tmpdir.join('a', 'b'))) == []


def test_a_directory_that_cannot_be_created_is_one_line(tmpdir):
    tmpdir.join('file').write('')
    path = str(tmpdir.join('file', 'sub', 'run.stat'))
    with pytest.raises(UsageError) as info:
        StatsPaths(path).check()
    assert str(info.value).startswith(
        'stats file %s: cannot create directory %s: ' % (
            path, os.path.dirname(path)))


def test_an_unwritable_directory_is_refused(tmpdir):
    ro = tmpdir.mkdir('ro')
    ro.chmod(0o500)
    try:
        if os.access(str(ro), os.W_OK) and os.geteuid() == 0:
            # root writes anyway: a file where a directory should be.
            path = str(tmpdir.join('file')) + '/run.stat'
            write(tmpdir.join('file'), b'')
        else:
            path = str(ro.join('run.stat'))
        with pytest.raises(UsageError):
            StatsPaths(path).check()
    finally:
        ro.chmod(0o700)


def test_outputs_may_not_be_inputs_or_each_other(tmpdir):
    stats = write(tmpdir.join('x.stat.gz'), gzip_bytes(HEADER))
    link = str(tmpdir.join('link'))
    os.symlink(stats, link)
    for path in (stats, link):
        with pytest.raises(UsageError) as info:
            safefiles.refuse_overwriting_inputs(
                [('report file', path)], [('stats file', stats)])
        assert 'is the stats file' in str(info.value)
    with pytest.raises(UsageError) as info:
        safefiles.refuse_overwriting_inputs(
            [('report file', 'r.txt'), ('rps histogram', './r.txt')], [])
    assert 'same file' in str(info.value)
    safefiles.refuse_overwriting_inputs(
        [('report file', str(tmpdir.join('r'))), ('rps histogram', None)],
        [('stats file', stats)])
    # Several outputs may go to the same device.
    safefiles.refuse_overwriting_inputs(
        [('report file', os.devnull), ('JSON file', os.devnull)],
        [('stats file', stats)])


def test_atomic_output_replaces_on_success_only(tmpdir):
    target = write(tmpdir.join('report.txt'), b'old report\n')
    os.chmod(target, 0o640)
    with safefiles.atomic_output(target, 'report file') as out:
        out.write('new report\n')
        assert read(target) == b'old report\n'
    assert read(target) == b'new report\n'
    assert os.stat(target).st_mode & 0o777 == 0o640
    with pytest.raises(ZeroDivisionError):
        with safefiles.atomic_output(target, 'report file') as out:
            out.write('half a rep')
            1 / 0
    assert read(target) == b'new report\n'
    assert sorted(os.listdir(str(tmpdir))) == ['report.txt']


def test_atomic_output_writes_a_new_file_with_the_umask_mode(tmpdir):
    target = str(tmpdir.join('new.csv'))
    with safefiles.atomic_output(target, 'rps histogram', 'csv') as out:
        out.write('"a"\n')
    mask = os.umask(0)
    os.umask(mask)
    assert os.stat(target).st_mode & 0o777 == 0o666 & ~mask


def test_atomic_output_keeps_a_symlink_and_writes_its_target(tmpdir):
    target = write(tmpdir.join('real.txt'), b'old')
    link = str(tmpdir.join('link.txt'))
    os.symlink(target, link)
    with safefiles.atomic_output(link, 'report file') as out:
        out.write('new')
    assert os.path.islink(link)
    assert read(target) == b'new'


def test_atomic_output_writes_devices_in_place():
    with safefiles.atomic_output(os.devnull, 'report file') as out:
        out.write('discarded')
    assert os.path.exists(os.devnull)


def test_check_output_refuses_a_directory(tmpdir):
    with pytest.raises(UsageError) as info:
        safefiles.check_output(str(tmpdir), 'report file')
    assert 'is a directory' in str(info.value)
    safefiles.check_output(os.devnull, 'report file')


def test_create_new_refuses_existing_files_and_links(tmpdir):
    victim = write(tmpdir.join('victim'), b'keep')
    os.symlink(victim, str(tmpdir.join('link')))
    for path in (victim, str(tmpdir.join('link'))):
        with pytest.raises(OSError):
            safefiles.create_new(path)
    assert read(victim) == b'keep'
    with safefiles.create_new(str(tmpdir.join('fresh'))) as fp:
        fp.write(b'x')
    assert read(tmpdir.join('fresh')) == b'x'


def test_check_output_replaces_an_existing_file_only_with_force(tmpdir):
    victim = write(tmpdir.join('victim.txt'), b'keep')
    link = str(tmpdir.join('link.txt'))
    os.symlink(victim, link)
    dangling = str(tmpdir.join('dangling'))
    os.symlink(str(tmpdir.join('nothing')), dangling)
    for path, kind in ((victim, 'exists;'),
                       (link, 'exists (a symbolic link to %s);' % victim),
                       (dangling, 'exists (a symbolic link to ')):
        with pytest.raises(UsageError) as info:
            safefiles.check_output(path, 'JSON file')
        assert str(info.value).startswith('JSON file %s: %s' % (path, kind))
        assert 'give --force to replace it' in str(info.value)
        safefiles.check_output(path, 'JSON file', force=True)
    safefiles.check_output(str(tmpdir.join('new.txt')), 'JSON file')
    # A device is written in place: it replaces nothing.
    safefiles.check_output(os.devnull, 'JSON file')
    assert read(victim) == b'keep'


def test_outputs_named_apart_may_still_be_one_file(tmpdir):
    link = str(tmpdir.join('link'))
    os.symlink(str(tmpdir.join('later.json')), link)
    with pytest.raises(UsageError) as info:
        safefiles.refuse_overwriting_inputs(
            [('JSON file', link), ('HTML file',
                                   str(tmpdir.join('later.json')))], [])
    assert 'JSON file and HTML file are the same file' in str(info.value)
    # The plain and gzip paths of the stats file are one output.
    safefiles.refuse_overwriting_inputs(
        [('stats file', 'x.stat'), ('stats file', 'x.stat.gz')], [])


def test_a_failed_write_names_the_file(tmpdir):
    if not os.path.exists('/dev/full'):
        pytest.skip('needs /dev/full')
    with pytest.raises(SsbenchError) as info:
        with safefiles.atomic_output('/dev/full', 'JSON file') as out:
            out.write('x' * 100000)
    assert str(info.value) == ('cannot write JSON file /dev/full: No space '
                               'left on device')


def test_a_file_that_cannot_be_written_leaves_nothing(tmpdir):
    target = write(tmpdir.join('report.txt'), b'old')
    with pytest.raises(SsbenchError) as info:
        with safefiles.atomic_output(target, 'report file') as out:
            out.write('new')
            raise IOError(28, 'No space left on device')  # as write() would
    assert 'cannot write report file %s: No space' % target in str(
        info.value)
    assert read(target) == b'old'
    assert os.listdir(str(tmpdir)) == ['report.txt']


def test_save_profile_writes_what_pstats_reads(tmpdir):
    import cProfile
    import pstats
    profiler = cProfile.Profile()
    profiler.enable()
    sorted([3, 2, 1])
    profiler.disable()
    target = str(tmpdir.join('m.prof'))
    safefiles.save_profile(profiler, target)
    assert pstats.Stats(target).total_calls > 0
    assert os.listdir(str(tmpdir)) == ['m.prof']
