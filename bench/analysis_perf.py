#!/usr/bin/env python
"""Time and peak RSS of the JSON analysis on big generated stats files.

    python bench/analysis_perf.py [--sizes 1000000,10000000] [--report]
                                  [--html]

For each size, generates (once, cached in --dir) a stats file with
bench/genstat.py, then runs ssbench.report.analyze() and
jsonreport.write_json() in a child process; with --html also analyze()
and html.render_html() (needs ssbench[html]), and with --report the text
report (stats.compute + report.render_text) for comparison.  Prints one
line per case: wall time, CPU time (the child's, from wait4: other load
on the machine stretches wall time, much less CPU time), the child's peak
RSS, and the output's size.
"""
from __future__ import absolute_import, division, print_function

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

from report_perf import (LIBRARY_RUN, ensure_stats_file,  # noqa: E402
                         measure)

ANALYSIS_RUN = '''
import sys
from ssbench.report.compute.analyze import analyze
from ssbench.report.render.jsonfile import write_json
doc = analyze(sys.argv[1])
with open(sys.argv[2], 'w') as out:
    write_json(doc, out)
'''

HTML_RUN = '''
import io, sys
from ssbench.report.compute.analyze import analyze
from ssbench.report.render.html import render_html
doc = analyze(sys.argv[1])
with io.open(sys.argv[2], 'w', encoding='utf-8') as out:
    render_html(doc, out)
'''


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--sizes', default='1000000,10000000')
    parser.add_argument('--dir', default='/tmp/ssbench-bench')
    parser.add_argument('--python', default=sys.executable)
    parser.add_argument('--report', action='store_true',
                        help='also time the text report')
    parser.add_argument('--html', action='store_true',
                        help='also time the HTML report')
    parser.add_argument('--repeat', type=int, default=1)
    args = parser.parse_args(argv)
    if not os.path.isdir(args.dir):
        os.makedirs(args.dir)
    for count in [int(n) for n in args.sizes.split(',')]:
        path = ensure_stats_file(args.dir, count, args.python)
        json_path = os.path.join(args.dir, 'genstat-%d.json' % count)
        html_path = os.path.join(args.dir, 'genstat-%d.html' % count)
        outputs = {'json': json_path, 'html': html_path}
        cases = [('json', [args.python, '-c', ANALYSIS_RUN, path,
                           json_path])]
        if args.html:
            cases.append(('html', [args.python, '-c', HTML_RUN, path,
                                   html_path]))
        if args.report:
            cases.append(('text', [args.python, '-c', LIBRARY_RUN, path,
                                   '95']))
        for _ in range(args.repeat):
            for name, command in cases:
                status, wall, cpu, rss = measure(command)
                extra = ''
                if name in outputs and os.path.exists(outputs[name]):
                    extra = ', %s %.2f MB' % (
                        name.upper(), os.path.getsize(outputs[name]) / 1e6)
                print('%s: %d results (%.0f MB gz): wall %.2f s, cpu %.2f '
                      's, peak RSS %.1f MB, exit %d%s' % (
                          name, count, os.path.getsize(path) / 1e6, wall,
                          cpu, rss, status, extra))
                sys.stdout.flush()
    return 0


if __name__ == '__main__':
    sys.exit(main())
