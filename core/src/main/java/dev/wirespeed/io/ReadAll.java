package dev.wirespeed.io;

import dev.wirespeed.io.spi.FileReadProvider;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * Reads a whole stream, channel or file into one exact array. A warm call on a stream of unknown
 * size allocates its result and no chunk; a file is read with one system call fewer than JDK 25's
 * {@code Files.readAllBytes}, and with one copy fewer where a platform module provides the read (see
 * below). How that compares with the JDK, length by length, is what {@code wirespeed lab readall}
 * measures.
 *
 * <h2>Files through a platform module</h2>
 * {@link #readAll(Path)} reads through the first usable {@link FileReadProvider} that
 * {@link java.util.ServiceLoader} finds: on Linux the native module's, which has the kernel copy a
 * file that is all in the page cache straight into the array, in windows of {@value #PROVIDER_WINDOW}
 * bytes (see its contract for what it leaves to an ordinary read). {@link #fileReads()} names the
 * one in use; {@code -D}{@value #PROVIDER_PROPERTY}{@code =false} turns it off. Where it declines a
 * file (it could not open it, say), the file is read as below, and errors are the JDK's.
 *
 * <h2>Size known</h2>
 * A file, a {@link FileInputStream} or a {@link SeekableByteChannel} says how many bytes
 * remain: they are read into one array of exactly that size. The JDK's own file channel is read with
 * a one-byte probe behind the array, so that the system call that fills the array also finds the end
 * of the file (the JDK makes a second read for that), and in windows of {@value #FILE_WINDOW} bytes
 * for files over twice that, so that the JDK's temporary direct buffer stays in the CPU's cache.
 * Other seekable channels are asked their size again after the read. If the file shrank meanwhile,
 * the bytes that were there are returned (one trimming copy); if it grew, the rest is read as for an
 * unknown size. (A file that grows after its end was seen is read as it was: any whole-file read
 * races with a writer.) Memory: {@code length} bytes, the array header and the channel's objects
 * when the file did not change: about 110 bytes less than JDK 25, whose probing read and stream
 * wrapper cost more than our probe, which is kept between calls (96 bytes the first time).
 *
 * <h2>Size unknown</h2>
 * Bytes are read into 16 KiB chunks, then copied once into an exact array. The chunks are kept
 * between calls (see below), so once warm a call allocates its result and nothing else: no chunk, no
 * growing and re-copying, no trimming copy (JDK 25 allocates every chunk afresh, then trims the last).
 * A chunk the kept set does not have yet is allocated only after one {@code read()} showed there is
 * more to read, so a call that grows the set allocates at most the chunks it fills and the result:
 * never more than JDK 25 at any length, but for the 56 bytes of a new set.
 *
 * <h2>Kept chunks</h2>
 * Up to one set of chunks per CPU (at most 8 sets) is kept, each of at most 1 MiB: 2 MiB with 2 CPUs,
 * never more than 8 MiB. A thread takes a kept set (its own slot's first, by thread id) and gives it
 * back after the call, lock-free. When more threads read at once than there are sets, a call that
 * finds none makes a new set (56 bytes) and allocates its chunks as JDK 25 would, still without the
 * JDK's trimming copy; only as many sets as slots are kept. Every byte a call wrote into a chunk is
 * cleared before the set is kept again, so a stream never sees the bytes of an earlier call, even one
 * that failed or ran in another thread. A stream must not use the array passed to its {@code read}
 * after returning (the {@code InputStream} contract; no stream of the JDK does).
 *
 * <h2>Views</h2>
 * {@link #readAllAsBuffer(InputStream)} returns a read-only {@link ByteBuffer} over a fresh 16 KiB
 * chunk when the input fits in one, without the copy an exact array needs; {@link #mapFile(Path, Arena)}
 * maps a file of any size without copying it at all.
 *
 * <h2>Limits</h2>
 * An input longer than the largest array ({@value #MAX_ARRAY_LENGTH} bytes) is refused with an
 * {@link IOException} naming the limit, after reading at most 16 KiB past it, not with an
 * {@code OutOfMemoryError}.
 *
 * <p>Thread safety: safe for any number of threads at once; the source must not be read by another
 * thread meanwhile.
 */
public final class ReadAll {
    /** The largest array the JVMs we know of allocate. */
    public static final int MAX_ARRAY_LENGTH = Integer.MAX_VALUE - 8;
    /** Chunk size for inputs of unknown size: the JDK's own, so that a call growing its set allocates no more than it. */
    static final int CHUNK = ReadScratch.CHUNK;
    /** Every empty result: an empty array is immutable, so one serves all. */
    private static final byte[] EMPTY = new byte[0];
    /** The most read from a file per system call: the JDK's temporary direct buffer then stays in the CPU's cache. */
    static final int FILE_WINDOW = 256 * 1024;
    /**
     * The most asked of a provider per read: 1 MiB, the most the JDK copies between an array and
     * native memory without a safepoint check, since a provider's read may hold one off.
     */
    static final int PROVIDER_WINDOW = 1024 * 1024;
    /** The class of the JDK's own file channel, null where there is none by that name. */
    private static final Class<?> JDK_FILE_CHANNEL = jdkFileChannel();
    /** Set to {@code false}, files are read through the JDK's channel even where a provider is present. */
    public static final String PROVIDER_PROPERTY = "wirespeed.fileReadProvider";

    private ReadAll() {
    }

    /**
     * Reads {@code in} to its end.
     *
     * @param in the stream; a {@link FileInputStream} is read through its channel, at its exact size
     * @return every remaining byte, in an array of exactly their number: a new one, or for no bytes
     *     one shared empty array
     * @throws IOException if reading fails, or the input is longer than {@link #MAX_ARRAY_LENGTH}
     */
    public static byte[] readAll(InputStream in) throws IOException {
        if (in instanceof FileInputStream file) {
            return readAll(file.getChannel());
        }
        return readToEnd(in, null);
    }

    /**
     * Reads {@code channel} to its end.
     *
     * @param channel the channel; a {@link SeekableByteChannel} is read at its exact remaining size;
     *     a non-blocking channel is read again after every empty read, idling as
     *     {@link IdleStrategy#defaultStrategy()} does
     * @return every remaining byte, in an array of exactly their number: a new one, or for no bytes
     *     one shared empty array
     * @throws IOException if reading fails, or the input is longer than {@link #MAX_ARRAY_LENGTH}
     */
    public static byte[] readAll(ReadableByteChannel channel) throws IOException {
        if (channel instanceof SeekableByteChannel seekable) {
            long start;
            long size;
            try {
                start = seekable.position();
                size = seekable.size();
            } catch (IOException | UnsupportedOperationException e) {
                return readAll(channel, -1, -1); // a pipe behind a FileChannel: no size to know
            }
            return readAll(channel, start, size - start);
        }
        return readAll(channel, -1, -1);
    }

    /**
     * Reads a channel at position {@code start} with {@code remaining} bytes left, or an unknown
     * number where {@code remaining} is not positive. Package-private so that tests can give a size
     * that is no longer true: a file that grew or shrank after it was asked.
     */
    static byte[] readAll(ReadableByteChannel channel, long start, long remaining) throws IOException {
        if (remaining <= 0) {
            return readToEnd(new ChannelReads(channel), null);
        }
        if (remaining > MAX_ARRAY_LENGTH) {
            throw tooLong(remaining);
        }
        byte[] exact = new byte[(int) remaining];
        if (JDK_FILE_CHANNEL != null && channel.getClass() == JDK_FILE_CHANNEL) {
            return readFile((FileChannel) channel, exact);
        }
        ChannelReads reads = new ChannelReads(channel);
        int filled = reads.readNBytes(exact, 0, exact.length);
        if (filled < exact.length) {
            return Arrays.copyOf(exact, filled); // shrank while we read
        }
        // The size, asked again, says whether we are at the end: one system call, where a probing read
        // would cost one call and a probe array. The position is known without asking.
        if (((SeekableByteChannel) channel).size() <= start + filled) {
            return exact;
        }
        return readToEnd(reads, exact); // grew while we read
    }

    /**
     * Reads the JDK's own file channel into {@code exact}, sized to what is left of the file, with
     * scattering reads into it and a one-byte probe behind it: the read that fills the array also
     * asks for one byte more, so that one system call reads the file and finds its end (JDK 25's
     * {@code Files.readAllBytes} makes a second, probing read). That read stopping short at the size
     * the file said it had is its end: the JDK's file channel reads a regular file short only there.
     * The probe and the buffer pair are kept between calls with the chunks.
     */
    private static byte[] readFile(FileChannel channel, byte[] exact) throws IOException {
        ReadScratch scratch = ReadScratch.take();
        boolean grew;
        try {
            ByteBuffer body = ByteBuffer.wrap(exact);
            ByteBuffer[] bodyThenProbe = scratch.bodyThenProbe(body);
            boolean windowed = exact.length > 2 * FILE_WINDOW;
            while (body.hasRemaining()) {
                long n;
                if (windowed && body.remaining() > FILE_WINDOW) {
                    body.limit(body.position() + FILE_WINDOW);
                    n = channel.read(body);
                    body.limit(exact.length);
                } else {
                    n = channel.read(bodyThenProbe);
                }
                if (n < 0) {
                    return Arrays.copyOf(exact, body.position()); // shrank while we read
                }
            }
            grew = scratch.probed();
        } finally {
            scratch.release(-1, 0);
        }
        if (!grew) {
            return exact;
        }
        // Grew while we read: back to the probe's byte, then the rest as for an unknown size.
        channel.position(channel.position() - 1);
        return readToEnd(new ChannelReads(channel), exact);
    }

    /**
     * Reads a file.
     *
     * @param file the file
     * @return its bytes, in an array of exactly their number: a new one, or for an empty file one
     *     shared empty array
     * @throws IOException if the file cannot be read, or is longer than {@link #MAX_ARRAY_LENGTH}
     */
    public static byte[] readAll(Path file) throws IOException {
        FileReadProvider provider = Provided.FILE_READS;
        if (provider != null) {
            FileReadProvider.OpenFile open = provider.open(file);
            if (open != null) {
                try (open) {
                    return readAll(open);
                }
            }
        }
        try (SeekableByteChannel channel = Files.newByteChannel(file)) {
            return readAll(channel, 0, channel.size()); // a new channel is at position 0: one system call fewer
        }
    }

    /**
     * {@return how {@link #readAll(Path)} reads files in this JVM}: the name of the platform provider
     * it found (see {@link FileReadProvider}), or {@code "the JDK's FileChannel"} followed by each
     * provider found unusable and why, as in {@code "the JDK's FileChannel (read(2) straight into the
     * array: no native access: start the JVM with --enable-native-access=ALL-UNNAMED)"}
     */
    public static String fileReads() {
        return Provided.REPORT;
    }

    /**
     * Reads a file a provider opened, from its start: into one exact array where it has a size, in
     * windows of {@value #PROVIDER_WINDOW} bytes (a provider's read may hold off safepoints while it
     * copies; the window bounds that); the end is then found by reading on into a kept chunk, which
     * also reads whatever the file grew by. Package-private so that tests can give adversarial files.
     */
    static byte[] readAll(FileReadProvider.OpenFile file) throws IOException {
        OpenFileStream in = new OpenFileStream(file);
        long size = file.size();
        if (size <= 0) {
            return readToEnd(in, null); // no size to go by (a pipe, a device, /proc)
        }
        if (size > MAX_ARRAY_LENGTH) {
            throw tooLong(size);
        }
        byte[] exact = new byte[(int) size];
        int filled = 0;
        while (filled < exact.length) {
            int n = file.read(exact, filled, Math.min(PROVIDER_WINDOW, exact.length - filled));
            if (n < 0) {
                return Arrays.copyOf(exact, filled); // shrank while we read
            }
            filled += n;
        }
        return readToEnd(in, exact);
    }

    /**
     * Reads {@code in} to its end into a read-only buffer, without the trimming copy an exact array
     * needs when the input fits in one chunk. Position 0, limit the length.
     *
     * @param in the stream
     * @return the bytes
     * @throws IOException if reading fails, or the input is longer than {@link #MAX_ARRAY_LENGTH}
     */
    public static ByteBuffer readAllAsBuffer(InputStream in) throws IOException {
        if (in instanceof FileInputStream file) {
            return ByteBuffer.wrap(readAll(file.getChannel())).asReadOnlyBuffer();
        }
        byte[] first = new byte[CHUNK];
        int filled = in.readNBytes(first, 0, CHUNK);
        if (filled < CHUNK) {
            return ByteBuffer.wrap(first, 0, filled).asReadOnlyBuffer();
        }
        return ByteBuffer.wrap(readToEnd(in, first)).asReadOnlyBuffer();
    }

    /**
     * Maps a whole file read-only, any size, copying nothing. The segment shows the file as it is
     * while mapped (changes by others become visible; a file truncated meanwhile faults on access, as
     * with any mapping) and lives as long as {@code arena}.
     *
     * @param file the file
     * @param arena owns the mapping
     * @return the file's bytes
     * @throws IOException if the file cannot be opened or mapped
     */
    public static MemorySegment mapFile(Path file, Arena arena) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            return channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
        }
    }

    /**
     * Reads {@code in} to its end into scratch chunks, and returns {@code head} (if not null) followed
     * by those bytes in one exact array. A chunk the scratch set does not have yet is allocated only
     * after a one-byte {@code read()} showed there is more to read (except the first when there is no
     * head), so that an input ending at a chunk boundary costs no chunk it does not use.
     */
    private static byte[] readToEnd(InputStream in, byte[] head) throws IOException {
        ReadScratch scratch = ReadScratch.take();
        long before = head == null ? 0 : head.length;
        int used = 0;
        int filled = 0;
        boolean gathered = false;
        try {
            byte[] chunk = null;
            while (true) {
                if (chunk == null || filled == CHUNK) {
                    if (before + (long) used * CHUNK > MAX_ARRAY_LENGTH) {
                        throw tooLong(before + (long) used * CHUNK);
                    }
                    boolean earn = !scratch.has(used) && (used > 0 || head != null);
                    int first = 0;
                    if (earn && (first = in.read()) < 0) {
                        break;
                    }
                    chunk = scratch.chunk(used++);
                    filled = 0;
                    if (earn) {
                        chunk[filled++] = (byte) first;
                    }
                }
                int n = in.read(chunk, filled, CHUNK - filled);
                if (n < 0) {
                    break;
                }
                filled += n;
            }
            byte[] all = gather(head, scratch, used, filled);
            gathered = true;
            return all;
        } finally {
            // After a failure the last chunk is cleared whole: the stream may have written into it
            // before it threw.
            scratch.release(used - 1, gathered ? filled : CHUNK);
        }
    }

    /**
     * One exact array: {@code head} (may be null), chunks {@code [0, used - 1)} of {@code scratch}
     * whole, then {@code lastFilled} bytes of chunk {@code used - 1}. Where {@code head} alone holds
     * every byte it is returned as it is; otherwise there is one copy of each byte.
     */
    private static byte[] gather(byte[] head, ReadScratch scratch, int used, int lastFilled) throws IOException {
        int headLength = head == null ? 0 : head.length;
        long total = headLength + (used == 0 ? 0 : (long) (used - 1) * CHUNK + lastFilled);
        if (total > MAX_ARRAY_LENGTH) {
            throw tooLong(total);
        }
        if (total == headLength) {
            return head != null ? head : EMPTY;
        }
        if (head == null && used == 1) {
            return Arrays.copyOf(scratch.chunk(0), lastFilled);
        }
        byte[] result = new byte[(int) total];
        if (head != null) {
            System.arraycopy(head, 0, result, 0, headLength);
        }
        int at = headLength;
        for (int i = 0; i < used - 1; i++) {
            System.arraycopy(scratch.chunk(i), 0, result, at, CHUNK);
            at += CHUNK;
        }
        System.arraycopy(scratch.chunk(used - 1), 0, result, at, lastFilled);
        return result;
    }

    private static Class<?> jdkFileChannel() {
        try {
            return Class.forName("sun.nio.ch.FileChannelImpl", false, null);
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    private static IOException tooLong(long length) {
        return new IOException("input longer than the largest array: length>=" + length + " max="
                + MAX_ARRAY_LENGTH + "; read it with a ChannelReader or map it (ReadAll.mapFile)");
    }

    /** The provider that {@link #readAll(Path)} reads through, found on first use. */
    private static final class Provided {
        private static final String PROPERTY = System.getProperty(PROVIDER_PROPERTY);
        /** Looked up once: a second pass over the loader returns the providers it made in the first. */
        private static final ServiceLoader<FileReadProvider> FOUND =
                ServiceLoader.load(FileReadProvider.class, ReadAll.class.getClassLoader());
        static final FileReadProvider FILE_READS = find(PROPERTY, FOUND);
        static final String REPORT = report(PROPERTY, FILE_READS, FOUND);
    }

    /** {@return {@link #fileReads()}'s words for {@code chosen}, or for the JDK and the providers of {@code found} not used} */
    static String report(String property, FileReadProvider chosen, Iterable<FileReadProvider> found) {
        if (chosen != null) {
            return chosen.name();
        }
        String jdk = "the JDK's FileChannel";
        if ("false".equals(property)) {
            return jdk + " (" + PROVIDER_PROPERTY + "=false)";
        }
        StringBuilder unusable = new StringBuilder();
        try {
            for (FileReadProvider provider : found) {
                unusable.append(unusable.isEmpty() ? " (" : "; ").append(provider.name()).append(": ")
                        .append(provider.unusableReason());
            }
        } catch (ServiceConfigurationError e) {
            unusable.append(unusable.isEmpty() ? " (" : "; ").append("a provider could not be loaded: ")
                    .append(e.getMessage());
        }
        return unusable.isEmpty() ? jdk : jdk + unusable + ")";
    }

    /**
     * {@return the first usable provider of {@code found}, or null where there is none, where
     * {@code property} is {@code "false"}, or where a provider on the path is broken}
     */
    static FileReadProvider find(String property, Iterable<FileReadProvider> found) {
        if ("false".equals(property)) {
            return null;
        }
        try {
            for (FileReadProvider provider : found) {
                if (provider.usable()) {
                    return provider;
                }
            }
        } catch (ServiceConfigurationError e) {
            // A provider that cannot be loaded: the JDK's channel reads as well, one copy slower.
        }
        return null;
    }

    /** A provider's open file as a stream, for reading past its size. */
    private static final class OpenFileStream extends InputStream {
        private final FileReadProvider.OpenFile file;
        private byte[] one;

        OpenFileStream(FileReadProvider.OpenFile file) {
            this.file = file;
        }

        @Override
        public int read(byte[] into, int offset, int length) throws IOException {
            return length == 0 ? 0 : file.read(into, offset, length);
        }

        @Override
        public int read() throws IOException {
            if (one == null) {
                one = new byte[1];
            }
            return file.read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }
    }

    /** A channel read into arrays, re-using one wrapper per array; zero-byte reads are retried. */
    private static final class ChannelReads extends InputStream {
        private final ReadableByteChannel channel;
        private byte[] wrapped;
        private ByteBuffer wrapper;
        private ByteBuffer one;

        ChannelReads(ReadableByteChannel channel) {
            this.channel = channel;
        }

        @Override
        public int read(byte[] into, int offset, int length) throws IOException {
            if (length == 0) {
                return 0;
            }
            if (into != wrapped) {
                wrapped = into;
                wrapper = ByteBuffer.wrap(into);
            }
            wrapper.limit(offset + length).position(offset);
            int n;
            int emptyReads = 0;
            while ((n = channel.read(wrapper)) == 0) {
                IdleStrategy.defaultStrategy().idle(++emptyReads);
            }
            return n;
        }

        @Override
        public int read() throws IOException {
            if (one == null) {
                one = ByteBuffer.allocate(1);
            }
            one.clear();
            int n;
            int emptyReads = 0;
            while ((n = channel.read(one)) == 0) {
                IdleStrategy.defaultStrategy().idle(++emptyReads);
            }
            return n < 0 ? -1 : one.get(0) & 0xFF;
        }
    }
}
