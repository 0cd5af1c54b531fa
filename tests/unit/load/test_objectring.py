"""ssbench.load.objectring: live objects per size class, packing, cleanup."""
from __future__ import absolute_import, division, print_function

from ssbench import CREATE_OBJECT, READ_OBJECT, UPDATE_OBJECT, DELETE_OBJECT
from ssbench.load.jobgen import object_name
from ssbench.load.objectring import PASS_OVER_MAX, ObjectRing
from tests.unit.load.test_jobgen import fail, succeed

C, R, U, D = CREATE_OBJECT, READ_OBJECT, UPDATE_OBJECT, DELETE_OBJECT


def entries(ring, size_str):
    """The (container, name, initial) entries of a class, head first."""
    return [ring._decode(size_str, code)
            for code in ring._rings.get(size_str, ())]


def answer(ring, job_type, found):
    """The result of a READ/UPDATE of `found` reaches the ring."""
    ring.on_results([succeed({'type': job_type, 'size_str': 'a',
                              'container': found[0], 'name': found[1]})])


def test_ring_fifo_rotate_and_pop():
    ring = ObjectRing()
    for n in (1, 2, 3):
        ring.add('a', 'c%d' % n, 'a_%d' % n)
    assert ring.count('a') == 3
    assert ring.take('a', R) == ('c1', 'a_1')     # head, rotated to back
    assert ring.take('a', U) == ('c2', 'a_2')
    assert [e[1] for e in entries(ring, 'a')] == ['a_3', 'a_1', 'a_2']
    assert ring.take('a', D) == ('c3', 'a_3')     # head removed
    assert [e[1] for e in entries(ring, 'a')] == ['a_1', 'a_2']
    answer(ring, R, ('c1', 'a_1'))
    answer(ring, U, ('c2', 'a_2'))
    assert ring.take('a', R) == ('c1', 'a_1')
    answer(ring, R, ('c1', 'a_1'))
    assert ring.take('a', D) == ('c2', 'a_2')
    assert ring.take('a', D) == ('c1', 'a_1')
    assert ring.take('a', D) is None
    assert ring.take('a', R) is None
    assert ring.take('never', R) is None
    assert ring.count('a') == ring.count('never') == 0


def test_ring_classes_are_independent():
    ring = ObjectRing()
    ring.add('a', 'c', 'a_1')
    ring.add('b', 'c', 'b_1')
    assert ring.take('b', D) == ('c', 'b_1')
    assert ring.take('b', R) is None
    assert (ring.count('a'), ring.count('b')) == (1, 0)


def test_on_results_adds_successful_creates_only():
    ring = ObjectRing()
    create = {'type': C, 'size_str': 'a', 'container': 'c', 'name': 'a_9',
              'size': 1, 'block_size': 10}
    ring.on_results([fail(create)])
    assert ring.count('a') == 0
    ring.on_results([succeed(create)])
    assert entries(ring, 'a') == [('c', 'a_9', False)]
    population = dict(create, name='a_1', head_first=True)
    ring.on_results([succeed(population)])
    assert entries(ring, 'a')[-1] == ('c', 'a_1', True)
    # Other types never add anything.
    ring.on_results([succeed(dict(create, type=R, name='a_5')),
                     succeed(dict(create, type=U, name='a_6'))])
    assert ring.count('a') == 2


def test_pop_created_returns_run_objects_and_keeps_initial_ones():
    ring = ObjectRing()
    ring.load([('a', 'c', 'a_1'), ('a', 'c', 'a_2')])
    ring.add('a', 'c', 'a_3')
    ring.add('b', 'c', 'b_3')
    ring.add('a', 'c', 'a_4')
    assert ring.pop_created() == [('a', 'c', 'a_3'), ('a', 'c', 'a_4'),
                                  ('b', 'c', 'b_3')]
    assert entries(ring, 'a') == [('c', 'a_1', True), ('c', 'a_2', True)]
    assert ring.pop_created() == []


def test_deletes_that_failed_or_never_answered_are_cleaned_up():
    ring = ObjectRing()
    ring.add('a', 'c', 'a_1', initial=True)
    for n in (2, 3, 4):
        ring.add('a', 'c', 'a_%d' % n)
    deletes = []
    for _ in range(4):
        container, name = ring.take('a', D)
        deletes.append({'type': D, 'size_str': 'a', 'container': container,
                        'name': name})
    ring.on_results([fail(deletes[0]),       # initial object: not ours
                     succeed(deletes[1]),    # a_2 gone
                     fail(deletes[2])])      # a_3 may still exist
    # a_4's result never came back.
    assert ring.pop_created() == [('a', 'c', 'a_3'), ('a', 'c', 'a_4')]
    assert ring.pop_created() == []


def test_one_list_of_results_of_both_kinds():
    ring = ObjectRing()
    ring.load([('a', 'c', 'a_000001'), ('a', 'c', 'a_000002')])
    ring.add('a', 'c', 'a_000003')
    records = [fail({'type': D, 'size_str': 'a', 'container': container,
                     'name': name})
               for container, name in [ring.take('a', D) for _ in 'xyz']]
    records.append(succeed({'type': C, 'size_str': 'b', 'container': 'c',
                            'name': 'b_000009'}))
    records.append(fail({'type': C, 'size_str': 'b', 'container': 'c',
                         'name': 'b_000010'}))
    records.append(succeed({'type': C, 'size_str': 'b', 'container': 'c',
                            'name': 'b_000011', 'head_first': True}))
    ring.on_results(records)
    assert entries(ring, 'b') == [('c', 'b_000009', False),
                                  ('c', 'b_000011', True)]
    assert ring.pop_created() == [('b', 'c', 'b_000009'),
                                  ('a', 'c', 'a_000003')]


def test_ring_packs_ssbench_names_and_keeps_odd_ones_as_they_are():
    ring = ObjectRing()
    ring.add('tiny', 'ssbench_000007_default_policy', 'tiny_000042')
    ring.add('tiny', 'c', 'tiny_1234567', initial=True)   # 7 digits
    ring.add('tiny', 'c', 'tiny_000001x')                 # not ours
    ring.add('tiny', 'c', 'tiny_00042')                   # 5 digits
    ring.add('tiny', 'c', 'small_000001')                 # other class
    assert entries(ring, 'tiny') == [
        ('ssbench_000007_default_policy', 'tiny_000042', False),
        ('c', 'tiny_1234567', True), ('c', 'tiny_000001x', False),
        ('c', 'tiny_00042', False), ('c', 'small_000001', False)]
    codes = list(ring._rings['tiny'])
    assert [code >= 0 for code in codes] == [True, True, False, False,
                                             False]
    assert ring.take('tiny', D) == ('ssbench_000007_default_policy',
                                    'tiny_000042')
    assert ring.take('tiny', R) == ('c', 'tiny_1234567')
    assert ring.take('tiny', D) == ('c', 'tiny_000001x')
    assert len(ring._odd) == 2
    assert ring.pop_created() == [
        ('tiny', 'c', 'tiny_00042'), ('tiny', 'c', 'small_000001'),
        ('tiny', 'c', 'tiny_000001x'),
        ('tiny', 'ssbench_000007_default_policy', 'tiny_000042')]
    assert ring._odd == {}
    assert entries(ring, 'tiny') == [('c', 'tiny_1234567', True)]


def test_names_of_digits_int_does_not_take_are_kept_as_odd_ones():
    ring = ObjectRing()
    for name in (u'tiny_\u00b2', u'tiny_\uff11\uff12\uff13\uff14\uff15\uff16'):
        ring.add('tiny', 'c', name)
    assert entries(ring, 'tiny') == [
        ('c', u'tiny_\u00b2', False),
        ('c', u'tiny_\uff11\uff12\uff13\uff14\uff15\uff16', False)]


def test_ring_keeps_numbers_too_large_to_pack():
    ring = ObjectRing()
    huge = 'tiny_%d' % (1 << 60)
    ring.add('tiny', 'c', huge)
    ring.add('tiny', 'c', 'tiny_%d' % ((1 << 42) - 1))
    assert [code >= 0 for code in ring._rings['tiny']] == [False, True]
    assert ring.take('tiny', D) == ('c', huge)
    assert ring.take('tiny', D) == ('c', 'tiny_%d' % ((1 << 42) - 1))


def test_ring_memory_follows_the_live_objects():
    """Rotating and deleting never lets the array grow without bound."""
    ring = ObjectRing()
    for n in range(1, 20001):
        ring.add('a', 'c%d' % (n % 7), object_name('a', n))
    for _ in range(100000):
        answer(ring, R, ring.take('a', R))
    assert len(ring._rings['a'].codes) <= 2 * 20000
    for _ in range(19990):
        ring.take('a', D)
    assert ring.count('a') == 10
    assert len(ring._rings['a'].codes) <= 10 + 4096
    assert [e[1] for e in entries(ring, 'a')] == [
        object_name('a', n) for n in range(19991, 20001)]
    assert len(ring._containers) == 7


def test_ring_memory_follows_the_live_objects_while_creates_outpace():
    """A class that appends faster than it pops (two CREATEs per READ
    here, as very_small's "zero" class) still cuts its dead front: the
    array stays near its live objects, not one code per READ ever drawn
    more."""
    ring = ObjectRing()
    number = 0
    for _ in range(60000):
        for _ in range(2):
            number += 1
            ring.add('a', 'c', object_name('a', number))
        answer(ring, R, ring.take('a', R))
    live = ring.count('a')
    assert live == 120000
    assert len(ring._rings['a'].codes) <= live * 8 // 7 + 4096
    assert set(e[1] for e in entries(ring, 'a')) == set(
        object_name('a', n) for n in range(1, number + 1))


def test_a_delete_passes_over_objects_a_read_or_update_still_uses():
    """A DELETE overtaking a READ of its object would make the READ fail
    with a 404, an error of the benchmark's making."""
    ring = ObjectRing()
    for n in (1, 2, 3):
        ring.add('a', 'c', 'a_%d' % n)
    read = ring.take('a', R)
    update = ring.take('a', U)
    assert [e[1] for e in entries(ring, 'a')] == ['a_3', 'a_1', 'a_2']
    ring.take('a', R)                   # a_3 rotated: all three in use
    assert ring.take('a', D) is False   # all in use: the draw is skipped
    assert [e[1] for e in entries(ring, 'a')] == ['a_1', 'a_2', 'a_3']
    answer(ring, U, update)             # a_2 free again
    assert ring.take('a', D) == ('c', 'a_2')
    assert [e[1] for e in entries(ring, 'a')] == ['a_3', 'a_1']
    # A failed READ frees its object too; two READs of one object free it
    # once both answered.
    ring.take('a', R)                   # a_3 read twice now
    ring.on_results([fail({'type': R, 'size_str': 'a', 'container': 'c',
                           'name': 'a_1'})])
    assert ring.take('a', D) == ('c', 'a_1')
    answer(ring, R, ('c', 'a_3'))
    assert ring.take('a', D) is False
    answer(ring, R, ('c', 'a_3'))
    assert ring.take('a', D) == ('c', 'a_3')
    assert ring.count('a') == 0
    assert ring._in_use == {}
    assert read == ('c', 'a_1')


def test_a_delete_looks_only_so_far_for_an_unused_object():
    ring = ObjectRing()
    total = PASS_OVER_MAX + 10
    for n in range(1, total + 1):
        ring.add('a', 'c', object_name('a', n))
    for _ in range(total):
        ring.take('a', R)
    answer(ring, R, ('c', object_name('a', total)))
    # The one unused object, the last, lies further than a DELETE looks.
    assert ring.take('a', D) is False
    assert ring.count('a') == total
    # Passed-over objects went to the back: the next DELETE reaches it.
    assert ring.take('a', D) == ('c', object_name('a', total))


def test_in_a_guarded_class_an_update_has_its_object_to_itself():
    """An UPDATE of a segmented object deletes the segments of the version
    it replaces: under a READ streaming them, or another UPDATE about to
    name them in its manifest."""
    ring = ObjectRing()
    ring.guard_updates(['a'])
    for n in (1, 2, 3):
        ring.add('a', 'c', 'a_%d' % n)
        ring.add('b', 'c', 'b_%d' % n)
    assert ring.take('a', U) == ('c', 'a_1')
    assert ring.take('a', R) == ('c', 'a_2')
    assert ring.take('a', R) == ('c', 'a_3')
    # a_1 is being updated: READs pass over it, READs share the others.
    assert ring.take('a', R) == ('c', 'a_2')
    # An UPDATE finds nothing unused; neither does a DELETE.
    assert ring.take('a', U) is False
    assert ring.take('a', D) is False
    answer(ring, U, ('c', 'a_1'))
    assert ring.take('a', U) == ('c', 'a_1')    # a_3 (read) passed over
    assert [e[1] for e in entries(ring, 'a')] == ['a_2', 'a_3', 'a_1']
    assert ring.take('a', R) == ('c', 'a_2')
    # With force, the head is taken whatever uses it.
    assert ring.take('a', U, force=True) == ('c', 'a_3')
    assert ring._updating == {'a_1': 1, 'a_3': 1}
    # Unguarded classes: READs and UPDATEs share objects.
    assert [ring.take('b', U) for _ in range(4)] == [
        ('c', 'b_1'), ('c', 'b_2'), ('c', 'b_3'), ('c', 'b_1')]
    assert ring.take('b', R) == ('c', 'b_2')
    assert ring._in_use['b_1'] == 2 and 'b_1' not in ring._updating


# -- ranked classes (popularity) -------------------------------------------

class Ranks(object):
    """A rank picker that hands out the ranks given, and records the class
    sizes it was asked about."""

    def __init__(self, *ranks):
        self.ranks = list(ranks)
        self.sizes = []

    def __call__(self, n):
        self.sizes.append(n)
        return self.ranks.pop(0)


def ranked(size_str='a', **pickers):
    ring = ObjectRing()
    ring.rank_by(pickers or {size_str: Ranks()})
    return ring


def ranked_names(ring, size_str='a'):
    return [ring._decode(size_str, code)[1]
            for code in ring._ranked[size_str]]


def test_ranked_class_orders_the_population_by_number():
    pick = Ranks(0, 2, 0)
    ring = ranked(a=pick)
    # Results of the population arrive in any order.
    for number in (3, 1, 4, 2):
        ring.add('a', 'c%d' % (number % 2), object_name('a', number),
                 initial=True)
    ring.add('a', 'c', object_name('a', 9))      # created: the cold end
    assert ranked_names(ring) == ['a_000001', 'a_000002', 'a_000003',
                                  'a_000004', 'a_000009']
    assert ring.take('a', R) == ('c1', 'a_000001')   # rank 0, stays
    assert ring.take('a', U) == ('c1', 'a_000003')
    assert ring.count('a') == 5
    answer(ring, R, ('c1', 'a_000001'))
    assert ring.take('a', D) == ('c1', 'a_000001')   # leaves the ranks
    assert ranked_names(ring)[0] == 'a_000002'
    assert pick.sizes == [5, 5, 5]
    assert ring.take('b', R) is None                 # no such class


def test_delete_passes_over_a_hot_object_in_flight():
    ring = ranked(a=Ranks(0, 0, 0, 0, 1, 0, 0))
    ring.load([('a', 'c', object_name('a', n)) for n in (1, 2, 3)])
    assert ring.take('a', R) == ('c', 'a_000001')    # hot, in flight
    assert ring.take('a', D) == ('c', 'a_000002')    # the next colder
    assert ring.take('a', R) == ('c', 'a_000001')
    # a_000003 free: a DELETE drawing the busy a_000001 takes it.
    assert ring.take('a', D) == ('c', 'a_000003')
    assert ranked_names(ring) == ['a_000001']
    # Only busy objects left: no DELETE, unless forced.
    ring.add('a', 'c', object_name('a', 7))
    assert ring.take('a', R) == ('c', 'a_000007')
    assert ring.take('a', D) is False
    assert ring.take('a', D, force=True) == ('c', 'a_000001')


def test_ranked_pass_over_wraps_and_is_bounded():
    ring = ranked(a=Ranks(*(list(range(80)) + [79, 78])))
    ring.load([('a', 'c', object_name('a', n)) for n in range(1, 81)])
    for _ in range(80):
        ring.take('a', R)    # every object in use once
    answer(ring, R, ('c', 'a_000001'))
    # From the coldest, the scan wraps to the hottest, which is free.
    assert ring.take('a', D) == ('c', 'a_000001')
    answer(ring, R, ('c', 'a_000070'))
    # a_000070 (now rank 68) is more than PASS_OVER_MAX past the coldest
    # (rank 78): not found.
    assert PASS_OVER_MAX < 68 + 1
    assert ring.take('a', D) is False


def test_guarded_ranked_class_keeps_updates_to_themselves():
    ring = ranked(a=Ranks(0, 0, 0, 0))
    ring.guard_updates(['a'])
    ring.load([('a', 'c', object_name('a', n)) for n in (1, 2)])
    assert ring.take('a', U) == ('c', 'a_000001')
    assert ring.take('a', R) == ('c', 'a_000002')   # passes the UPDATE
    assert ring.take('a', U) is False               # both in use
    answer(ring, U, ('c', 'a_000001'))
    assert ring.take('a', R) == ('c', 'a_000001')


def test_ranked_class_against_a_sorted_list():
    # Many chunks: random adds and deletes anywhere keep the order, the
    # count and every rank's object those of a plain sorted list.
    import random
    rng = random.Random(3)
    draws = []
    ring = ranked(a=lambda n: draws[-1] % n)
    model = []
    numbers = list(range(1, 6001))
    rng.shuffle(numbers)
    for number in numbers:
        ring.add('a', 'c', object_name('a', number), initial=True)
        model.append(number)
    model.sort()
    for step in range(3000):
        draws.append(rng.randrange(10 ** 6))
        if step % 3:
            rank = draws[-1] % len(model)
            assert ring.take('a', D)[1] == object_name('a', model[rank])
            del model[rank]
        else:
            number = rng.randrange(1, 9000)
            ring.add('a', 'c', object_name('a', number), initial=True)
            model.append(number)
            model.sort()
    assert ring.count('a') == len(model)
    assert ranked_names(ring) == [object_name('a', n) for n in model]
    while model:     # down to empty chunks, and none
        draws.append(0)
        assert ring.take('a', D)[1] == object_name('a', model.pop(0))
    assert ring.take('a', D) is None


def test_rank_by_converts_classes_that_hold_objects():
    ring = ObjectRing()
    ring.load([('a', 'c', object_name('a', n)) for n in (2, 1)])
    ring.add('b', 'c', object_name('b', 5))
    ring.rank_by({'a': Ranks(1)})
    assert ranked_names(ring) == ['a_000001', 'a_000002']
    assert ring.take('a', R) == ('c', 'a_000002')
    assert ring.take('b', R) == ('c', 'b_000005')     # still rotates
    ring.rank_by({})
    assert [e[1] for e in entries(ring, 'a')] == ['a_000001', 'a_000002']
    assert ring.take('a', R) == ('c', 'a_000001')


def test_pop_created_of_a_ranked_class():
    ring = ranked(a=Ranks())
    ring.load([('a', 'c', object_name('a', 1))])
    ring.add('a', 'c', object_name('a', 5))
    ring.add('a', 'c', 'a_odd')
    # Names ssbench does not make rank before its own.
    assert ring.pop_created() == [('a', 'c', 'a_odd'), ('a', 'c', 'a_000005')]
    assert ranked_names(ring) == ['a_000001']
