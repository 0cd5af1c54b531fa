"""The one fake clock of the tests: FakeClock."""
from __future__ import absolute_import, division, print_function


class FakeClock(object):
    """A clock that stands still unless told: calling it (or
    .monotonic()) reads it; advance() and sleep() move it on.  With
    `step`, each reading first moves it `step` seconds, so the first
    reading is `start`.  .time() is a wall clock `wall_offset` seconds
    off the monotonic one, moving with it.  `now` is where it stands; a
    simulation may set it outright, to jump to an event's time."""

    def __init__(self, start=100.0, step=0.0, wall_offset=0.0):
        self.now = start - step
        self.step = step
        self.wall_offset = wall_offset
        self.calls = 0
        self.slept = []

    def __call__(self):
        self.calls += 1
        self.now += self.step
        return self.now

    monotonic = __call__

    def time(self):
        """The wall clock's reading."""
        return self() + self.wall_offset

    def advance(self, seconds):
        """Move the clock `seconds` on."""
        self.now += seconds

    def sleep(self, seconds):
        """A sleep that takes no time: noted, and the clock moved on."""
        self.slept.append(seconds)
        self.advance(seconds)
