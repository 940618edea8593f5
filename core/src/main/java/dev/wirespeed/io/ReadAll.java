package dev.wirespeed.io;

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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a whole stream, channel or file: faster than {@code InputStream.readAllBytes()} where the size
 * is known, never more memory than it where it is not.
 *
 * <h2>Size known</h2>
 * A {@link Path}, a {@link FileInputStream} or a {@link SeekableByteChannel} says how many bytes
 * remain: they are read into one array of exactly that size, then the size is asked again. If the
 * file shrank meanwhile, the bytes that were there are returned (one trimming copy); if it grew, the
 * rest is read as for an unknown size. (A file that grows between that last question and the return
 * is read as it was: any whole-file read races with a writer.) Memory: {@code length} bytes (plus the array header) when the
 * file did not change.
 *
 * <h2>Size unknown</h2>
 * Bytes are read into a list of 16 KiB chunks, each filled before the next is allocated, and gathered
 * into one exact array at the end: no growing and re-copying, no copy at all when the input fills
 * exactly one chunk, and no trimming copy of the last chunk (the JDK 25 {@code readAllBytes} makes
 * one). A stream that fills the first chunk is probed with one {@code read()} before a second chunk
 * is allocated, so an input of exactly 16 KiB costs one chunk, not two. Memory: at most {@code 16 KiB + length} for inputs up to one chunk, and at most
 * {@code ceil((length + 1) / 16 KiB) * 16 KiB + length} beyond, never more than JDK 25's
 * {@code readAllBytes} of the same input.
 *
 * <h2>Views</h2>
 * {@link #readAllAsBuffer(InputStream)} returns a read-only {@link ByteBuffer} and so skips even the
 * copy an exact array needs when the input fits in one chunk; {@link #mapFile(Path, Arena)} maps a file
 * of any size without copying it at all.
 *
 * <h2>Limits</h2>
 * An input longer than the largest array ({@value #MAX_ARRAY_LENGTH} bytes) is refused with an
 * {@link IOException} naming the limit, after reading past it, not with an {@code OutOfMemoryError}.
 *
 * <p>Thread safety: stateless; the source must not be read by another thread meanwhile.
 */
public final class ReadAll {
    /** The largest array the JVMs we know of allocate. */
    public static final int MAX_ARRAY_LENGTH = Integer.MAX_VALUE - 8;
    /** Chunk size for inputs of unknown size: the JDK's own, so that we never allocate more than it. */
    static final int CHUNK = 16 * 1024;
    /** Every empty result: an empty array is immutable, so one serves all. */
    private static final byte[] EMPTY = new byte[0];

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
        // The loop of chunks() again, written out for streams: no lambda and no result object, so
        // that even an empty stream costs no more than one chunk.
        byte[] first = null;
        List<byte[]> more = null;
        long total = 0;
        byte[] chunk = new byte[CHUNK];
        int filled = 0;
        int n;
        while ((n = in.read(chunk, filled, chunk.length - filled)) >= 0) {
            filled += n;
            if (filled == chunk.length) {
                total += filled;
                if (total > MAX_ARRAY_LENGTH) {
                    throw tooLong(total);
                }
                if (first == null) {
                    first = chunk;
                    // One probing read() before a second chunk: an input of exactly one chunk then costs
                    // one chunk, where JDK 25 allocates a second one only to find the end in it.
                    int next = in.read();
                    if (next < 0) {
                        return first;
                    }
                    chunk = new byte[CHUNK];
                    chunk[0] = (byte) next;
                    filled = 1;
                    continue;
                }
                if (more == null) {
                    more = new ArrayList<>();
                }
                more.add(chunk);
                chunk = new byte[CHUNK];
                filled = 0;
            }
        }
        return gather(first, more, chunk, filled, total + filled);
    }

    /**
     * Reads {@code channel} to its end.
     *
     * @param channel the channel; a {@link SeekableByteChannel} is read at its exact remaining size;
     *     a non-blocking channel is busy-polled, yielding the CPU every 8 empty reads
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
     * number where {@code remaining} is not positive.
     */
    private static byte[] readAll(ReadableByteChannel channel, long start, long remaining) throws IOException {
        if (remaining <= 0) {
            return toArray(chunks(new ChannelReads(channel), null));
        }
        if (remaining > MAX_ARRAY_LENGTH) {
            throw tooLong(remaining);
        }
        byte[] exact = new byte[(int) remaining];
        ChannelReads reads = new ChannelReads(channel);
        int filled = readFully(reads, exact, 0, exact.length);
        if (filled < exact.length) {
            return Arrays.copyOf(exact, filled); // shrank while we read
        }
        // The size, asked again, says whether we are at the end: one system call, where a probing read
        // would cost one call and a probe array. The position is known without asking.
        if (((SeekableByteChannel) channel).size() <= start + filled) {
            return exact;
        }
        return toArray(chunks(reads, exact)); // grew while we read
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
        try (SeekableByteChannel channel = Files.newByteChannel(file)) {
            return readAll(channel, 0, channel.size()); // a new channel is at position 0: one system call fewer
        }
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
        Chunks chunks = chunks(in::read, null);
        if (chunks.first == null) {
            return ByteBuffer.wrap(chunks.last, 0, chunks.lastLength).asReadOnlyBuffer();
        }
        return ByteBuffer.wrap(toArray(chunks)).asReadOnlyBuffer();
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

    /** The bytes read so far: {@code first}, the chunks in {@code more}, then {@code lastLength} bytes of {@code last}. */
    private record Chunks(byte[] first, List<byte[]> more, byte[] last, int lastLength, long total) {
    }

    /** Reads to the end in chunks; {@code head}, if not null, comes first (a file that grew). */
    private static Chunks chunks(Reads reads, byte[] head) throws IOException {
        byte[] first = head;
        List<byte[]> more = null;
        long total = head == null ? 0 : head.length;
        byte[] chunk = new byte[CHUNK];
        int filled = 0;
        int n;
        while ((n = reads.read(chunk, filled, chunk.length - filled)) >= 0) {
            filled += n;
            if (filled == chunk.length) {
                total += filled;
                if (total > MAX_ARRAY_LENGTH) {
                    throw tooLong(total);
                }
                if (first == null) {
                    first = chunk;
                } else {
                    if (more == null) {
                        more = new ArrayList<>();
                    }
                    more.add(chunk);
                }
                chunk = new byte[CHUNK];
                filled = 0;
            }
        }
        return new Chunks(first, more, chunk, filled, total + filled);
    }

    private static byte[] toArray(Chunks chunks) throws IOException {
        return gather(chunks.first, chunks.more, chunks.last, chunks.lastLength, chunks.total);
    }

    /**
     * One exact array of {@code total} bytes: {@code first} (may be null), the arrays of {@code more}
     * (may be null), then {@code lastLength} bytes of {@code last}. Where a single array already holds
     * exactly the bytes it is returned as it is; otherwise there is one gathering copy.
     */
    private static byte[] gather(byte[] first, List<byte[]> more, byte[] last, int lastLength, long total)
            throws IOException {
        if (total > MAX_ARRAY_LENGTH) {
            throw tooLong(total);
        }
        if (first == null) {
            return lastLength == 0 ? EMPTY : Arrays.copyOf(last, lastLength);
        }
        if (more == null && lastLength == 0) {
            return first;
        }
        byte[] result = new byte[(int) total];
        System.arraycopy(first, 0, result, 0, first.length);
        int at = first.length;
        if (more != null) {
            for (int i = 0; i < more.size(); i++) { // indexed: no iterator, even before the JIT removes it
                byte[] chunk = more.get(i);
                System.arraycopy(chunk, 0, result, at, chunk.length);
                at += chunk.length;
            }
        }
        System.arraycopy(last, 0, result, at, lastLength);
        return result;
    }

    private static int readFully(Reads reads, byte[] into, int offset, int length) throws IOException {
        int done = 0;
        while (done < length) {
            int n = reads.read(into, offset + done, length - done);
            if (n < 0) {
                break;
            }
            done += n;
        }
        return done;
    }

    private static IOException tooLong(long length) {
        return new IOException("input longer than the largest array: length>=" + length + " max="
                + MAX_ARRAY_LENGTH + "; read it with a ChannelReader or map it (ReadAll.mapFile)");
    }

    /** A source of bytes read into arrays, as {@link InputStream#read(byte[], int, int)}. */
    @FunctionalInterface
    private interface Reads {
        int read(byte[] into, int offset, int length) throws IOException;
    }

    /** A channel read into arrays, re-using one wrapper per array; zero-byte reads are retried. */
    private static final class ChannelReads implements Reads {
        private final ReadableByteChannel channel;
        private byte[] wrapped;
        private ByteBuffer wrapper;

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
                BusyPoll.idle(++emptyReads);
            }
            return n;
        }
    }
}
