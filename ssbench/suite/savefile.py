"""suite.json written whole after every step: through a temporary name
renamed into place (ssbench.results.safefiles.atomic_output), so that a
failed write leaves the last one intact, and with room kept for it: a
step that fills the disk with its stats file still leaves room to say
so in suite.json (see docs/suites.rst)."""
from __future__ import absolute_import, division, print_function

import logging
import os

from ssbench.suite.folder import SUITE_FILE

log = logging.getLogger('ssbench')

RESERVE_FILE = '.suite.json.reserve'
# The room kept: twice suite.json's size and this much more.
MIN_RESERVE = 16 * 1024


class SuiteFile(object):
    """The suite.json of `folder`, and a file of zeros beside it
    holding room for the next one until it is written."""

    def __init__(self, folder):
        self.path = os.path.join(folder, SUITE_FILE)
        self.reserve = os.path.join(folder, RESERVE_FILE)

    def save(self, doc):
        """Replace suite.json with `doc` (SsbenchError, the last one left
        as it was, when it cannot be written), then keep room for the
        next."""
        from ssbench.report.render.jsonfile import write_json
        from ssbench.results.safefiles import atomic_output
        self.release()
        with atomic_output(self.path, 'suite file', 'w') as out:
            write_json(doc, out)
        self._keep_room(MIN_RESERVE + 2 * os.path.getsize(self.path))

    def _keep_room(self, size):
        from ssbench.results.safefiles import create_new
        try:
            with create_new(self.reserve) as out:
                out.write(b'\0' * size)
        except (IOError, OSError) as exc:
            log.debug('no room kept for %s: %s', self.path, exc)
            self.release()

    def release(self):
        """Give the room kept back (at the end of the suite)."""
        try:
            os.unlink(self.reserve)
        except OSError:
            pass
