package dev.wirespeed.linux.internal.files;

import dev.wirespeed.linux.NativeIoException;
import dev.wirespeed.linux.internal.sys.Errno;
import dev.wirespeed.linux.internal.sys.Flags;
import dev.wirespeed.linux.internal.sys.LibC;
import dev.wirespeed.linux.internal.sys.Sys;
import dev.wirespeed.linux.internal.sys.SyscallNumbers;
import dev.wirespeed.io.spi.FileReadProvider;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.Charset;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Reads files for {@link dev.wirespeed.io.ReadAll#readAll(Path)} on Linux with one copy fewer than
 * the JDK: {@code read(2)} copies from the page cache straight into the Java array, where a
 * {@code FileChannel} reads into a direct buffer and copies that into the array. Found by
 * {@link java.util.ServiceLoader}; usable where this module has native access
 * ({@code --enable-native-access}), so that it never makes the JVM warn, and where the kernel has
 * {@code cachestat(2)} (Linux 6.5).
 *
 * <h2>When the copy goes straight into the array</h2>
 * Only a critical down-call may be given a Java array, and a thread in one does not reach a
 * safepoint until it returns: the whole JVM's next garbage collection waits for it. So the copy
 * goes straight into the array only
 * <ul>
 *   <li>for a regular file of at least one byte, all of whose pages {@code cachestat} showed to be
 *       in the page cache when it was opened: the read copies memory and does not wait for a disk
 *       (a page evicted between the check and the read is read back in: rare, and one page);</li>
 *   <li>at most {@value #WINDOW} bytes per call, the most the JDK itself copies without a safepoint
 *       check;</li>
 *   <li>within the size the file had when it was opened.</li>
 * </ul>
 * Everything else (the read that finds the end, what a file grew by, a file not all in memory, a
 * pipe, a device, {@code /proc}) is read as the JDK reads: into a native buffer of {@value #BUFFER}
 * bytes kept between calls, then copied, never holding off a safepoint.
 *
 * <h2>What is left to the JDK</h2>
 * {@link #open} returns {@code null} where {@code open(2)} fails (the JDK then opens the file again
 * and reports the error as it always does), for a path of another file system, and for a name
 * longer than {@code PATH_MAX} or not encodable in {@code sun.jnu.encoding}.
 *
 * <h2>Memory</h2>
 * A kept scratch per CPU (at most 8): the path, the {@code statx} and {@code cachestat} structures,
 * and the native buffer once a read needed it. Once warm, a call allocates its open file; the
 * segment each critical read is given over the array is made at the call, so that the compiler can
 * remove it. What a whole read costs beside its result is measured, against the JDK's, by
 * {@code wirespeed lab readall}.
 *
 * <p>Thread safety: the provider may be used by any number of threads; each open file by one.
 */
public final class LinuxFileReads implements FileReadProvider {
    /**
     * The most one critical read copies into an array: 1 MiB, the most the JDK itself copies between
     * an array and native memory without a safepoint check.
     */
    static final int WINDOW = 1024 * 1024;
    /** The native buffer of reads that are not critical. */
    static final int BUFFER = 64 * 1024;
    /**
     * Files smaller than this are read into the buffer, then copied, in one system call that also
     * finds the end: fewer calls than the critical path's check and end read, which cost more than
     * the copy they save below it.
     */
    static final int SMALL = 32 * 1024;

    private static final int AT_EMPTY_PATH = 0x1000;
    private static final int STATX_TYPE = 0x1;
    private static final int STATX_SIZE = 0x200;
    private static final long STATX_MODE_OFFSET = 0x1C;
    private static final long STATX_SIZE_OFFSET = 0x28;
    private static final int S_IFMT = 0xF000;
    private static final int S_IFREG = 0x8000;
    private static final int PATH_MAX = 4096;

    /** Creates the provider; {@link java.util.ServiceLoader} does. */
    public LinuxFileReads() {
    }

    @Override
    public String name() {
        return "read(2) straight into the array (Linux, pages in memory)";
    }

    @Override
    public boolean usable() {
        return Support.PAGE_SIZE > 0;
    }

    @Override
    public String unusableReason() {
        return usable() ? "" : Support.WHY;
    }

    @Override
    public FileReadProvider.OpenFile open(Path file) throws IOException {
        if (!usable() || file.getFileSystem() != FileSystems.getDefault()) {
            return null;
        }
        Scratch scratch = Scratch.take();
        Opened opened = null;
        try {
            if (!scratch.putPath(file.toString())) {
                return null;
            }
            int fd = (int) LibC.Files.OPEN.invokeExact(scratch.capture, scratch.path, Flags.O_RDONLY | Flags.O_CLOEXEC);
            if (fd < 0) {
                return null;
            }
            try {
                int rc = (int) LibC.Files.STATX.invokeExact(scratch.capture, fd, scratch.empty, AT_EMPTY_PATH,
                        STATX_TYPE | STATX_SIZE, scratch.statx);
                if (rc < 0) {
                    throw new NativeIoException("statx", LibC.errno(scratch.capture), "file=" + file + " fd=" + fd);
                }
                boolean regular = (scratch.statx.get(ValueLayout.JAVA_SHORT, STATX_MODE_OFFSET) & S_IFMT) == S_IFREG;
                long size = regular ? scratch.statx.get(ValueLayout.JAVA_LONG, STATX_SIZE_OFFSET) : 0;
                opened = new Opened(file, fd, size, size >= SMALL && inMemory(scratch, fd, size), scratch);
                return opened;
            } finally {
                if (opened == null) {
                    Sys.closeQuietly(fd);
                }
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("a down-call failed", t);
        } finally {
            if (opened == null) {
                Scratch.give(scratch);
            }
        }
    }

    /** {@return whether every page of the file's first {@code size} bytes is in the page cache} */
    private static boolean inMemory(Scratch scratch, int fd, long size) throws Throwable {
        scratch.range.set(ValueLayout.JAVA_LONG, 0, 0L);
        scratch.range.set(ValueLayout.JAVA_LONG, 8, size);
        long rc = (long) LibC.Files.SYSCALL_4.invokeExact(scratch.capture, SyscallNumbers.CACHESTAT, fd, scratch.range,
                scratch.cachestat, 0);
        long pages = (size + Support.PAGE_SIZE - 1) / Support.PAGE_SIZE;
        return rc == 0 && scratch.cachestat.get(ValueLayout.JAVA_LONG, 0) >= pages;
    }

    /** A file opened for one read from start to end. */
    static final class Opened implements FileReadProvider.OpenFile {
        private final Path file;
        private final long size;
        private final boolean critical;
        /** Bytes read into the scratch buffer and not yet handed out, from {@code bufferedAt}. */
        private int buffered;
        private int bufferedAt;
        /** A read stopped at the size: the next call returns -1 without a system call. */
        private boolean endSeen;
        private int fd;
        private long position;
        private Scratch scratch;

        Opened(Path file, int fd, long size, boolean critical, Scratch scratch) {
            this.file = file;
            this.fd = fd;
            this.size = size;
            this.critical = critical;
            this.scratch = scratch;
        }

        @Override
        public long size() {
            return size;
        }

        /** {@return whether reads up to the size go straight into the array: a file larger than the buffer, all in memory} */
        boolean critical() {
            return critical;
        }

        @Override
        public int read(byte[] into, int offset, int length) throws IOException {
            Objects.checkFromIndexSize(offset, length, into.length);
            if (fd < 0) {
                throw new IOException("read after close: file=" + file + " offset=" + position);
            }
            if (length == 0) {
                return 0;
            }
            if (buffered == 0) {
                if (endSeen) {
                    return -1;
                }
                if (critical && position < size) {
                    int want = (int) Math.min(Math.min(length, WINDOW), size - position);
                    int n = call(into, offset, want, true);
                    position += n;
                    return n == 0 ? -1 : n;
                }
                // A small file is asked for one byte past its size: a read that stops at the size found
                // the end (a regular file reads short only there), one system call fewer.
                int want = position < size && size < BUFFER ? (int) (size - position + 1) : BUFFER;
                int n = call(null, 0, want, false);
                if (n == 0) {
                    endSeen = true;
                    return -1;
                }
                endSeen = n < want && position + n == size;
                bufferedAt = 0;
                buffered = n;
            }
            int n = Math.min(length, buffered);
            MemorySegment.copy(scratch.buffer(), ValueLayout.JAVA_BYTE, bufferedAt, into, offset, n);
            bufferedAt += n;
            buffered -= n;
            position += n;
            return n;
        }

        /**
         * One {@code read(2)} of {@code want} bytes: straight into {@code into} from {@code offset}
         * where {@code critical}, else into the scratch buffer; repeated after {@code EINTR}.
         *
         * @return the bytes read, 0 at the end
         */
        private int call(byte[] into, int offset, int want, boolean critical) throws IOException {
            long n;
            try {
                do {
                    if (critical) {
                        // Segments made here, not kept: compiled, they never exist (no allocation per window).
                        MemorySegment target = offset == 0 ? MemorySegment.ofArray(into)
                                : MemorySegment.ofArray(into).asSlice(offset, want);
                        n = (long) LibC.Files.READ_CRITICAL.invokeExact(scratch.capture, fd, target, (long) want);
                    } else {
                        n = (long) LibC.Files.READ_AT.invokeExact(scratch.capture, fd, scratch.buffer().address(),
                                (long) want);
                    }
                } while (n < 0 && LibC.errno(scratch.capture) == Errno.EINTR);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException("read down-call failed", t);
            }
            if (n < 0) {
                throw new NativeIoException("read", LibC.errno(scratch.capture),
                        "file=" + file + " offset=" + position + " length=" + want);
            }
            return (int) n;
        }

        @Override
        public void close() throws IOException {
            if (fd < 0) {
                return;
            }
            int closing = fd;
            fd = -1;
            Scratch kept = scratch;
            scratch = null;
            try {
                Sys.close(closing, kept.capture, file);
            } finally {
                Scratch.give(kept);
            }
        }
    }

    /**
     * Native memory one open uses: the path, {@code statx} and {@code cachestat} structures, the
     * errno capture, and the buffer of reads that are not critical. Kept between calls, lock-free,
     * one slot per CPU (at most 8); a call finding none makes one, and only as many as slots are kept.
     */
    private static final class Scratch {
        private static final int SLOTS = Math.min(8, Integer.highestOneBit(Runtime.getRuntime().availableProcessors() * 2 - 1));
        private static final AtomicReferenceArray<Scratch> KEPT = new AtomicReferenceArray<>(SLOTS);
        private static final Charset NAMES = names();

        private final Arena arena = Arena.ofAuto();
        final MemorySegment path = arena.allocate(PATH_MAX);
        final MemorySegment empty = arena.allocate(1);
        final MemorySegment statx = arena.allocate(256, 8);
        final MemorySegment range = arena.allocate(16, 8);
        final MemorySegment cachestat = arena.allocate(40, 8);
        final MemorySegment capture = LibC.captureSegment(arena);
        private MemorySegment buffer;

        static Scratch take() {
            int home = (int) (Thread.currentThread().threadId() % SLOTS);
            for (int k = 0; k < SLOTS; k++) {
                Scratch kept = KEPT.getAndSet((home + k) % SLOTS, null);
                if (kept != null) {
                    return kept;
                }
            }
            return new Scratch();
        }

        static void give(Scratch scratch) {
            int home = (int) (Thread.currentThread().threadId() % SLOTS);
            for (int k = 0; k < SLOTS; k++) {
                if (KEPT.compareAndSet((home + k) % SLOTS, null, scratch)) {
                    return;
                }
            }
        }

        MemorySegment buffer() {
            if (buffer == null) {
                buffer = arena.allocate(BUFFER, 4096);
            }
            return buffer;
        }

        /** {@return whether {@code name} was put, NUL-terminated; false where it is too long or cannot be encoded} */
        boolean putPath(String name) {
            int length = name.length();
            if (length >= PATH_MAX) {
                return false;
            }
            for (int i = 0; i < length; i++) {
                char c = name.charAt(i);
                if (c >= 0x80) {
                    return putEncoded(name);
                }
                path.set(ValueLayout.JAVA_BYTE, i, (byte) c);
            }
            path.set(ValueLayout.JAVA_BYTE, length, (byte) 0);
            return true;
        }

        private boolean putEncoded(String name) {
            if (NAMES == null || !NAMES.newEncoder().canEncode(name)) {
                return false;
            }
            byte[] bytes = name.getBytes(NAMES);
            if (bytes.length >= PATH_MAX) {
                return false;
            }
            MemorySegment.copy(bytes, 0, path, ValueLayout.JAVA_BYTE, 0, bytes.length);
            path.set(ValueLayout.JAVA_BYTE, bytes.length, (byte) 0);
            return true;
        }

        /** {@return the charset the JDK encodes file names in, or null where it cannot be found} */
        private static Charset names() {
            try {
                return Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"));
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
    }

    /** Whether the provider can work here, checked once: no down-call is linked before native access is known. */
    private static final class Support {
        static final String WHY;
        /** The page size {@code cachestat} counts in, or 0 where the provider is not usable. */
        static final long PAGE_SIZE;

        static {
            String why;
            long page = 0;
            if (!LibC.LINUX) {
                why = "not Linux: os.name=" + System.getProperty("os.name");
            } else if (SyscallNumbers.CACHESTAT < 0) {
                why = "no cachestat number known for os.arch=" + System.getProperty("os.arch");
            } else if (!LinuxFileReads.class.getModule().isNativeAccessEnabled()) {
                why = "no native access: start the JVM with --enable-native-access="
                        + (LinuxFileReads.class.getModule().isNamed() ? "dev.wirespeed.linux" : "ALL-UNNAMED");
            } else {
                why = probe();
                if (why == null) {
                    why = "usable";
                    page = pageSize();
                }
            }
            WHY = why;
            PAGE_SIZE = page;
        }

        /** {@return null where {@code cachestat} exists (it refuses fd -1 with EBADF), else why not} */
        private static String probe() {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment capture = LibC.captureSegment(arena);
                MemorySegment range = arena.allocate(16, 8);
                MemorySegment stat = arena.allocate(40, 8);
                long rc = (long) LibC.Files.SYSCALL_4.invokeExact(capture, SyscallNumbers.CACHESTAT, -1, range, stat,
                        0);
                int errno = rc < 0 ? LibC.errno(capture) : 0;
                if (errno == Errno.EBADF) {
                    return null;
                }
                return errno == Errno.ENOSYS ? "the kernel has no cachestat (Linux 6.5+): os.version="
                        + System.getProperty("os.version") : "cachestat(fd=-1) gave rc=" + rc + " errno=" + errno
                        + " (" + Errno.strerror(errno) + "), not EBADF";
            } catch (Throwable t) {
                return "cachestat could not be called: " + t;
            }
        }

        private static long pageSize() {
            try {
                return (int) LibC.Files.GETPAGESIZE.invokeExact();
            } catch (Throwable t) {
                return 4096;
            }
        }
    }
}
