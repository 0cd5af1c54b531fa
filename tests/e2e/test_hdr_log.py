"""--hdr-log read by the reference implementation: a real run against the
local Swift writes an HdrHistogram interval log, and HdrHistogram's own
Java HistogramLogReader (tests/e2e/java/HdrLogSummary.java, compiled here
against the jar tools/hdrhistogram-jar fetches from Maven Central) sums
its intervals per tag.  Its counts are the JSON report's, and its
percentiles those of the stats file within HdrHistogram's precision;
HistogramLogProcessor reads the log too.

Without java, javac or the jar the test is skipped
(SSBENCH_REQUIRE_JAVA=1, as in CI, fails it)."""
from __future__ import absolute_import, division, print_function

import io
import json
import math
import os
import re
from fractions import Fraction

import pytest

from tests.e2e import support

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

JAR_TOOL = os.path.join(support.ROOT, 'tools', 'hdrhistogram-jar')
SUMMARY = os.path.join(support.ROOT, 'tests', 'e2e', 'java',
                       'HdrLogSummary.java')
PCTILES = (50, 99, 99.9)
# The JSON report's names of the operations, as the log's tags.
TAGS = {'total': '-', 'create': 'CREATE', 'read': 'READ',
        'update': 'UPDATE', 'delete': 'DELETE'}


def on_path(name):
    return any(os.access(os.path.join(folder, name), os.X_OK)
               for folder in os.environ.get('PATH', '').split(os.pathsep))


@pytest.fixture(scope='module')
def hdr_java(tmpdir_factory):
    """(java, classpath) of HdrLogSummary compiled against the jar."""
    missing = [tool for tool in ('java', 'javac', 'mvn')
               if not on_path(tool)]
    reason = None
    if missing:
        reason = 'no %s (apt-get install default-jdk-headless maven)' % (
            ' and '.join(missing),)
    else:
        fetched = support.run([JAR_TOOL], 900)
        if fetched.status != 0:
            reason = 'no HdrHistogram jar (tools/hdrhistogram-jar): %s' % (
                (fetched.err.strip().splitlines() or [''])[-1],)
    if reason is not None:
        if os.environ.get('SSBENCH_REQUIRE_JAVA') == '1':
            pytest.fail(reason)
        pytest.skip(reason)
    jar = fetched.out.strip()
    classes = str(tmpdir_factory.mktemp('hdrjava'))
    built = support.run(['javac', '-d', classes, '-cp', jar, SUMMARY], 300)
    assert built.status == 0, built
    return jar, os.pathsep.join([classes, jar])


@pytest.fixture
def scenario(tmpdir):
    support.require_swift()
    path, data = support.write_scenario(tmpdir, operation_count=400)
    yield path
    support.SwiftView().delete_everything(data['container_base'] + '_')


def summary(classpath, hlog):
    """{tag: (intervals, count, p50, p99, p99.9, max)} as Java reads it."""
    ran = support.run(['java', '-cp', classpath, 'HdrLogSummary', hlog], 120)
    assert ran.status == 0, ran
    out = {}
    for line in ran.out.splitlines():
        fields = line.split()
        out[fields[0]] = tuple(int(value) for value in fields[1:])
    return out


def nanos(seconds):
    return int(seconds * 1e9 + 0.5)


def within_precision(java, value):
    """HdrHistogram gives the highest value of the bucket holding
    `value` (ns): 3 significant digits, 0.1% plus one unit."""
    return value <= java <= value + value / 1000 + 1


def latencies(results):
    """{tag: sorted latencies} of the successes, as the report reads
    them (last byte; READ-first-byte)."""
    out = {}
    names = {'upload_object': 'CREATE', 'get_object': 'READ',
             'update_object': 'UPDATE', 'delete_object': 'DELETE'}
    for result in results:
        if 'exception' in result or not result['last_byte_latency']:
            continue
        for tag in ('-', names[result['type']]):
            out.setdefault(tag, []).append(result['last_byte_latency'])
        if result.get('first_byte_latency'):
            out.setdefault('READ-first-byte', []).append(
                result['first_byte_latency'])
    return dict((tag, sorted(values)) for tag, values in out.items())


def test_hdrhistogram_reads_what_the_report_says(tmpdir, scenario,
                                                 hdr_java):
    jar, classpath = hdr_java
    stats = str(tmpdir.join('run.stat'))
    run_hlog = str(tmpdir.join('run.hlog'))
    ran = support.master(
        'run-scenario', '-f', scenario, '-s', stats, '--workers', '2',
        '-R', '--hdr-log', run_hlog, '--hdr-interval', '0.5',
        *(support.zmq_args() + support.auth_args()))
    assert ran.status == 0, ran
    stats += '.gz'
    # report-scenario writes the same log from the stats file.
    report_hlog = str(tmpdir.join('report.hlog'))
    doc_path = str(tmpdir.join('run.json'))
    ran = support.master('report-scenario', '-s', stats, '--json', doc_path,
                         '--hdr-log', report_hlog, '--hdr-interval', '0.5',
                         '-f', os.devnull)
    assert ran.status == 0, ran
    with io.open(run_hlog, 'rb') as fp, io.open(report_hlog, 'rb') as other:
        assert fp.read() == other.read()
    with io.open(doc_path, encoding='utf-8') as fp:
        doc = json.load(fp)

    read = summary(classpath, run_hlog)
    values = latencies(support.read_results(stats))
    expected = {}
    for op in doc['operations']:
        expected[TAGS[op['operation']]] = op['latency']['last_byte'][0]
        if op['operation'] == 'read':
            expected['READ-first-byte'] = op['latency']['first_byte'][0]
    assert sorted(read) == sorted(expected) == sorted(values)
    # Intervals of 0.5 s: a line per tag in each (the run takes seconds).
    assert len(set(row[0] for row in read.values())) == 1
    assert read['-'][0] >= 2
    for tag, entry in expected.items():
        intervals, count, p50, p99, p999, top = read[tag]
        assert count == entry['count'] == len(values[tag]), tag
        assert within_precision(top, nanos(entry['max'])), tag
        for pctile, java in zip(PCTILES, (p50, p99, p999)):
            mine = entry['p' + repr(pctile).replace('.', '_')]
            ordered = values[tag]
            exact = Fraction(repr(float(pctile))) * count / 100
            rank = min(max(int(math.ceil(exact)), 1), count)
            # HdrHistogram: the value at rank ceil(n p / 100), rounded up
            # to its bucket.
            assert within_precision(java, nanos(ordered[rank - 1])), \
                (tag, pctile)
            if exact.denominator == 1 and rank < count:
                # The report's nearest rank: the mean of two neighbours.
                assert ordered[rank - 1] <= mine <= ordered[rank], \
                    (tag, pctile)
            else:
                assert within_precision(java, nanos(mine)), (tag, pctile)

    # HdrHistogram's own processor: the READ tag's percentile
    # distribution, in milliseconds, over every READ of the run.
    prefix = str(tmpdir.join('read'))
    ran = support.run(['java', '-cp', jar,
                       'org.HdrHistogram.HistogramLogProcessor', '-i',
                       run_hlog, '-tag', 'READ', '-o', prefix], 120)
    assert ran.status == 0, ran
    with io.open(prefix + '.hgrm', encoding='utf-8') as fp:
        hgrm = fp.read()
    total = re.search(r'Total count += +([0-9]+)\]', hgrm)
    assert total and int(total.group(1)) == read['READ'][1], hgrm
