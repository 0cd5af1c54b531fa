"""The analysis computed the obvious way (every value in memory), and
fake stats files, for the tests of ssbench.report."""
from __future__ import absolute_import, division, print_function

import decimal
import math
import random

from ssbench import CRUD_TYPES
from ssbench.report.compute.cells import GROUPS
from ssbench.report.compute.classicstats import series_stats

HEADER = {u'_scenario_data': {u'name': u'Naive', u'sizes': [
    {u'name': u'tiny', u'size_min': 1, u'size_max': 9},
    {u'name': u'big', u'size_min': 10, u'size_max': 99}]},
    u'name': u'Naive', u'version': u'9.9', u'user_count': 5}
OPERATION_OF = dict((job, key) for _, key, job in GROUPS if job)


class FakeStatsFile(object):
    """What analyze() needs from statsfile.open_stats(); counts passes."""
    raw_strings = False

    def __init__(self, results, header=HEADER, batch=3, path='fake.stat'):
        self.header = header
        self.path = path
        self.batches = [results[i:i + batch]
                        for i in range(0, len(results), batch)]
        self.passes = 0

    def iter_batches(self, raw=False):
        assert not raw
        self.passes += 1
        return iter(self.batches)


def res(type_='get_object', size_str='tiny', at=100.5, first=0.01,
        last=0.02, worker=0, txid=None, retries=0, **extra):
    """A successful result; ``extra`` adds keys (``size``: bytes)."""
    result = {'type': type_, 'size_str': size_str, 'completed_at': at,
              'first_byte_latency': first, 'last_byte_latency': last,
              'worker_id': worker, 'trans_id': txid, 'retries': retries}
    result.update(extra)
    return result


def err(type_='get_object', size_str='tiny', at=100.5, worker=0, retries=2,
        exception='boom', **extra):
    """A failed result."""
    result = {'type': type_, 'size_str': size_str, 'completed_at': at,
              'worker_id': worker, 'retries': retries, 'trans_id': None,
              'exception': exception, 'traceback': 'Traceback...'}
    result.update(extra)
    return result


def timeouts_run(timeouts, with_time=True):
    """1,000 reads of 10..50 ms, then `timeouts` reads that gave up after
    20 s (with_time: the record says so, as ssbench records since
    time_to_failure; else as 0.3.x recorded them)."""
    results = [res(at=100.0 + i / 100, last=0.010 + (i % 41) / 1000,
                   txid='tx%d' % i) for i in range(1000)]
    for i in range(timeouts):
        extra = {'time_to_failure': 20.0 + i} if with_time else {}
        results.append(err(at=105.0 + i, error_class='timeout',
                           exception='Timeout: 20 s', trans_id='txt%d' % i,
                           **extra))
    return results


def random_results(rng, n, new_keys=True, span=300.0, types=CRUD_TYPES):
    """Results of a made-up run: ties, zeros, Nones, unknown types and
    sizes, out-of-order completions, failures with and without causes;
    `types` are the known job types drawn."""
    results = []
    for i in range(n):
        type_ = rng.choice(list(types) * 5 + ['copy_object'])
        size = rng.choice(['tiny', 'tiny', 'big', 'huge'])
        at = 1000.0 + span * i / n + rng.uniform(-3, 3)
        extra = {}
        if rng.random() < 0.05:
            if new_keys and rng.random() < 0.8:
                if rng.random() < 0.6:
                    extra['status'] = rng.choice([503, 404, 500])
                    if rng.random() < 0.3:  # an S3 run's code
                        extra['error_class'] = rng.choice(
                            ['SlowDown', 'NoSuchKey', 'InternalError'])
                else:
                    extra['error_class'] = rng.choice(
                        ['timeout', 'ConnectionRefusedError'])
                extra['reconnects'] = rng.choice([0, 0, 1])
                spent = rng.choice([None, 0.0, 2.5] +
                                   [round(rng.lognormvariate(-1, 1), 4)] * 5)
                if spent is not None:
                    extra['time_to_failure'] = spent
            results.append(err(
                type_, size, at, rng.randrange(4), rng.choice([0, 3]),
                exception=rng.choice(['Boom\nline two', 'Oops ' * 60]),
                trans_id=rng.choice([None, 'txe%d' % i]), **extra))
            continue
        if rng.random() < 0.05:
            last = rng.choice([0.0, None, 0.002, 0.5])
        else:
            last = round(rng.lognormvariate(-3, 1), 4)
        first = None
        if type_ == 'get_object':
            first = last * rng.choice([0.5, 1.0]) if last else last
        if new_keys:
            extra['status'] = 200
            extra['reconnects'] = rng.choice([0, 0, 0, 2])
        if type_ in ('upload_object', 'update_object') or (
                new_keys and type_ == 'get_object'):
            extra['size'] = rng.randrange(0, 5000)
        results.append(res(type_, size, at, first, last, rng.randrange(4),
                           'tx%d' % i, rng.choice([0, 0, 1]), **extra))
    if new_keys:
        add_retry_causes(results)
    return results


# Retry causes of a result by its index (no random draw, so that the
# other keys stay those of the seeds): none, a token that expired, the
# cluster's, a mixture.
RETRY_CAUSES = (None, {'401': 1}, {'503': 1},
                {'401': 1, '503': 1, 'ConnectionResetError': 1})


def add_retry_causes(results):
    """Give results with retries a `retry_causes` adding up to them
    (or none, as a result without them counts as not recorded)."""
    for i, result in enumerate(results):
        retries = result['retries']
        causes = RETRY_CAUSES[i % len(RETRY_CAUSES)]
        if not retries or causes is None:
            continue
        if sum(causes.values()) != retries:
            causes = {'timeout' if retries == 1 else '401': retries}
        result['retry_causes'] = dict(causes)


def random_run(seed, n=600, **kwargs):
    return random_results(random.Random(seed), n, **kwargs)


def _began(result):
    last = result.get('last_byte_latency')
    return result['completed_at'] - last if last else result['completed_at']


def is_result(result):
    return (isinstance(result, dict) and 'completed_at' in result and
            'type' in result and 'size_str' in result and
            'worker_id' in result and
            ('exception' in result or 'last_byte_latency' in result))


def warm_up_threshold(results, skip):
    """The first request start + skip, over all usable results."""
    return min(_began(r) for r in results if is_result(r)) + skip


def included(results, skip=0):
    """The results analyze(skip=skip) keeps, in file order."""
    kept = [r for r in results if is_result(r)]
    if skip:
        threshold = warm_up_threshold(kept, skip)
        kept = [r for r in kept if r['completed_at'] >= threshold]
    return kept


def _members(results, key):
    job = dict((k, j) for _, k, j in GROUPS)[key]
    return [r for r in results if job is None or r['type'] == job]


def percentile(values, pctile):
    """The report's nearest-rank percentile (docs/internals.rst, "Report
    numbers") of values (any order), written
    apart from the code under test: sort, then the rank in decimal
    arithmetic, exact for a percentile written in decimal (99.9 is
    99.9, not the double nearest it).  None for no values."""
    data = sorted(values)
    if not data:
        return None
    with decimal.localcontext() as context:
        context.prec = 80
        rank = decimal.Decimal(len(data)) * decimal.Decimal(
            repr(pctile)) / 100
        ceiling = int(rank.to_integral_value(decimal.ROUND_CEILING))
        whole = rank == ceiling

    def at(position):
        """The value at a 1-based position clamped to the list."""
        return data[min(max(position, 1), len(data)) - 1]

    if not whole:
        return at(ceiling)
    # Rank 0 (p0) takes the first value twice, as the rule clamps it.
    following = ceiling + 1 if ceiling >= 1 else ceiling
    return (at(ceiling) + at(following)) / 2


def latency(results, kind, pctiles):
    """Exact statistics of a series, like the document's entry."""
    values = [r.get(kind) for r in results]
    base = series_stats(values, 50, [r.get('trans_id') for r in results])
    data = sorted(v for v in values if v)
    out = {'count': base.count, 'min': base.min, 'max': base.max,
           'avg': base.avg, 'std_dev': base.std_dev,
           'worst_trans_id': (base.worst_txid if base.worst_latency
                              is not None else None)}
    for pctile in pctiles:
        out[pctile] = percentile(data, pctile)
    out['histogram'] = histogram([v for v in data if v > 0])
    return out


def failure_time(result):
    """A failure's time_to_failure when it is a usable number of seconds
    (a number, not bool, finite, not negative), else None."""
    value = result.get('time_to_failure')
    if type(value) not in (int, float) or value != value:
        return None
    return value if 0 <= value < float('inf') else None


def all_requests(results, pctiles):
    """The "all_requests" entry of results: successes at their last-byte
    latency (0 and None left out, as in every latency series), failures
    at their time to failure, counted apart when they have none."""
    values = []
    worst = worst_id = None
    failures = untimed = 0
    for r in results:
        if 'exception' in r:
            value = failure_time(r)
            if value is None:
                untimed += 1
                continue
            failures += 1
            values.append(value)
        else:
            value = r.get('last_byte_latency')
            if value:
                values.append(value)
        if value is not None and (worst is None or value > worst):
            worst, worst_id = value, r.get('trans_id')
    data = sorted(values)
    out = {'count': len(data), 'failures': failures,
           'failures_without_time': untimed,
           'min': data[0] if data else None,
           'max': data[-1] if data else None,
           'avg': sum(data) / len(data) if data else None,
           'worst_trans_id': worst_id,
           'histogram': histogram([v for v in data if v > 0])}
    out['std_dev'] = (math.sqrt(sum((v - out['avg']) ** 2 for v in data) /
                                len(data)) if data else None)
    for pctile in pctiles:
        out[pctile] = percentile(data, pctile)
    return out


def histogram(values):
    """Buckets (10**(k/20), 10**((k+1)/20)] by direct search."""
    counts = {}
    for value in values:
        k = int(math.floor(20 * math.log10(value))) + 1
        while 10 ** ((k - 1) / 20) >= value:
            k -= 1
        while 10 ** (k / 20) < value:
            k += 1
        counts[k - 1] = counts.get(k - 1, 0) + 1
    return [[10 ** (b / 20), 10 ** ((b + 1) / 20), counts[b]]
            for b in sorted(counts)]


def retry_split(result):
    """[(cause, count)] of a result's retries, causes named as the
    failure causes are ('HTTP 401'), in name order: 'not recorded' for
    them all when the causes are missing or do not add up."""
    retries = result.get('retries') or 0
    if not retries:
        return []
    causes = result.get('retry_causes')
    good = (isinstance(causes, dict) and
            sum(n for n in causes.values()
                if type(n) is int and n > 0) == retries and
            all(type(n) is int and n > 0 for n in causes.values()))
    if not good:
        return [('not recorded', retries)]
    named = [(u'HTTP ' + c if c.isdigit() else c, n)
             for c, n in causes.items()]
    return sorted(named)


def retries(results):
    """(total, auth, {(operation, cause): count}, the keys in order of
    first appearance) of the results' retries."""
    table = {}
    order = []
    for r in results:
        op = OPERATION_OF.get(r['type'], r['type'])
        for cause, count in retry_split(r):
            if (op, cause) not in table:
                order.append((op, cause))
                table[op, cause] = 0
            table[op, cause] += count
    auth = sum(n for (_, cause), n in table.items() if cause == 'HTTP 401')
    return sum(table.values()), auth, table, order


def operation(results, key):
    """Counters of one operation, as in the document."""
    members = _members(results, key)
    by_cause = {}
    for r in members:
        for cause, count in retry_split(r):
            by_cause[cause] = by_cause.get(cause, 0) + count
    ok = [r for r in members if 'exception' not in r]
    failed = [r for r in members if 'exception' in r]
    sized = [r['size'] for r in ok if r.get('size') is not None]
    any_reconnects = any(r.get('reconnects') is not None for r in results)
    out = {'count': len(ok), 'errors': len(failed),
           'retries': sum(r.get('retries') or 0 for r in members),
           'retries_by_cause': by_cause,
           'auth_retries': by_cause.get('HTTP 401', 0),
           'reconnects': (sum(r.get('reconnects') or 0 for r in members)
                          if any_reconnects else None),
           'bytes': sum(sized) if sized else None,
           'start': min(_began(r) for r in ok) if ok else None,
           'stop': max(r['completed_at'] for r in ok) if ok else None}
    out['req_per_s'] = (len(ok) / (out['stop'] - out['start'])
                        if ok and out['stop'] != out['start'] else None)
    out['throughput'] = throughput(
        [int(math.floor(r['completed_at'])) for r in ok])
    return out


def throughput(seconds):
    if not seconds:
        return None
    first, last = min(seconds), max(seconds)
    per = dict((s, 0) for s in range(first, last + 1))
    for second in seconds:
        per[second] += 1
    counts = [per[s] for s in sorted(per)]
    if len(counts) >= 3:
        counts = counts[1:-1]
    counts.sort()
    p25, p50, p75 = [float(percentile(counts, p))
                     for p in (25, 50, 75)]
    return {'seconds': len(counts), 'fastest': float(counts[-1]),
            'p75': p75, 'median': p50, 'p25': p25,
            'slowest': float(counts[0]), 'iqr': p75 - p25}


def timeseries(results, max_buckets, names):
    """Width, first bucket index, and per operation the counters and the
    exact per-bucket percentiles (to compare within the error bound)."""
    seconds = [int(math.floor(r['completed_at'])) for r in results]
    width = 1
    while max(s // width for s in seconds) - min(
            s // width for s in seconds) + 1 > max_buckets:
        width *= 2
    lo = min(s // width for s in seconds)
    count = max(s // width for s in seconds) - lo + 1
    out = {}
    for key in names:
        members = _members(results, key)
        entry = dict((name, [0] * count)
                     for name in ('requests', 'errors', 'bytes'))
        values = dict((kind, [[] for _ in range(count)])
                      for kind in ('first_byte', 'last_byte'))
        for r in members:
            b = int(math.floor(r['completed_at'])) // width - lo
            if 'exception' in r:
                entry['errors'][b] += 1
                continue
            entry['requests'][b] += 1
            entry['bytes'][b] += r.get('size') or 0
            for kind in values:
                value = r.get(kind + '_latency')
                if value and value > 0:
                    values[kind][b].append(value)
        for kind, buckets in values.items():
            for pctile in (50, 99):
                entry['%s_p%d' % (kind, pctile)] = [
                    percentile(v, pctile) for v in buckets]
        out[key] = entry
    return width, lo * width, count, out


def causes(results):
    """(operation, cause) -> [count, first_seen, last_seen, trans_id,
    message], and the keys in order of first appearance."""
    table = {}
    order = []
    for r in results:
        if 'exception' not in r:
            continue
        op = OPERATION_OF.get(r['type'], r['type'])
        if r.get('status') is not None and r.get('error_class'):
            cause = 'HTTP %d %s' % (r['status'], r['error_class'])
        elif r.get('status') is not None:
            cause = 'HTTP %d' % r['status']
        elif r.get('error_class'):
            cause = r['error_class']
        else:
            cause = 'not recorded'
        key = (op, cause)
        if key not in table:
            order.append(key)
            table[key] = [0, r['completed_at'], r['completed_at'], None,
                          r['exception'].strip().splitlines()[0].strip()[:200]]
        entry = table[key]
        entry[0] += 1
        entry[1] = min(entry[1], r['completed_at'])
        entry[2] = max(entry[2], r['completed_at'])
        if entry[3] is None:
            entry[3] = r.get('trans_id')
    return table, order
