package dev.wirespeed.shm;

/**
 * The kinds of ring file, told apart by the layout's version in the magic: a file of one kind is never
 * opened as another, and the refusal names what the file holds and what opens it.
 */
enum RingKind {
    /** {@link SharedRing}: one writer, one reader; layout 1. */
    ONE_TO_ONE(1, SharedRing.HEADER_BYTES, "a one-to-one shared ring (one writer, one reader)", "SharedRing.open"),
    /** {@link ManyToOneRing}: writers in any number of threads and processes, one reader; layout 2. */
    MANY_TO_ONE(2, ManyToOneRing.HEADER_BYTES, "a many-to-one shared ring (many writers, one reader)",
            "ManyToOneRing.open");

    /** "WSRING" read as a little-endian long, without the version in its top two bytes. */
    private static final long WSRING = 0x0000_474E_4952_5357L;

    /** The layout's version: the magic's last two bytes, little-endian. */
    final int version;
    /** "WSRING", then the version, read as a little-endian long. */
    final long magic;
    /** The header's bytes, before the records: whole pages. */
    final int headerBytes;
    /** What a file of this kind holds, in words. */
    final String description;
    /** The call that opens a file of this kind. */
    final String opener;

    RingKind(int version, int headerBytes, String description, String opener) {
        this.version = version;
        this.magic = WSRING | (long) version << 48;
        this.headerBytes = headerBytes;
        this.description = description;
        this.opener = opener;
    }

    /** {@return the kind whose magic is {@code magic}, or null if none's is} */
    static RingKind ofMagic(long magic) {
        for (RingKind kind : values()) {
            if (kind.magic == magic) {
                return kind;
            }
        }
        return null;
    }
}
