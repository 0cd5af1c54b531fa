"""ssbench: a benchmark suite for OpenStack Swift object storage."""

version = '0.7.0.dev0'
__version__ = version

# Job types, spelled as they appear in result records and stats files.
CREATE_OBJECT = 'upload_object'
READ_OBJECT = 'get_object'
UPDATE_OBJECT = 'update_object'
DELETE_OBJECT = 'delete_object'
HEAD_OBJECT = 'head_object'
LIST_CONTAINER = 'list_container'

# CRUD order used by crud_profile lists.
CRUD_TYPES = (CREATE_OBJECT, READ_OBJECT, UPDATE_OBJECT, DELETE_OBJECT)
# Every job type a crud_profile may weigh, in the order of
# ssbench.measure.profile.PROFILE_KEYS: CRUD, then HEAD and LIST (only
# the object form of a profile gives these two a weight).
OPERATION_TYPES = CRUD_TYPES + (HEAD_OBJECT, LIST_CONTAINER)

# Swift's large objects (over S3 each is a multipart upload).
LARGE_OBJECT_KINDS = ('slo', 'dlo')


def segments_container(container):
    """The container of the segments of `container`'s large objects (as
    Swift's tools name it); the master creates it, cleanup deletes it."""
    return container + '_segments'
