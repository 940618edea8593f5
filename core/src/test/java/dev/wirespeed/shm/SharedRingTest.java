package dev.wirespeed.shm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.testing.Seed;
import dev.wirespeed.testing.SteadyState;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shared ring's contract: its layout byte by byte as {@code docs/shared-ring.md} states it; frames
 * of every size in order, wrapping the ring's end many times, through copies and claims; a full ring
 * pushing back; a writer and a reader on two threads, and in two processes; every broken input refused
 * naming its values; nothing allocated per frame.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SharedRingTest {
    @RegisterExtension
    static final Seed SEED = Seed.fromPropertyOrNew();

    private Path dir;
    private final List<SharedRing> rings = new ArrayList<>();

    @BeforeEach
    void makeDirectory() throws IOException {
        Path shm = Path.of("/dev/shm");
        dir = Files.createTempDirectory(Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(
                System.getProperty("java.io.tmpdir")), "wirespeed-ring-test");
    }

    @AfterEach
    void removeFiles() throws IOException {
        for (SharedRing r : rings) {
            r.close();
        }
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
        Files.delete(dir);
    }

    private SharedRing create(int capacity) throws IOException {
        SharedRing r = SharedRing.create(dir.resolve("ring-" + rings.size()), capacity);
        rings.add(r);
        return r;
    }

    /** The body of frame {@code i} of a test stream: {@code length} bytes, each {@code i + j}. */
    private static byte[] body(long i, int length) {
        byte[] b = new byte[length];
        for (int j = 0; j < length; j++) {
            b[j] = (byte) (i + j);
        }
        return b;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @Test
    void theLayoutIsAsDocumentedByteByByte() throws IOException {
        SharedRing ring = create(4096);
        assertEquals(2040, ring.maxFrameLength(), "half the capacity less the 8-byte header");
        RingWriter writer = ring.writer();
        assertTrue(writer.offer(0x01020304, ByteBuffer.wrap("abc".getBytes(StandardCharsets.US_ASCII))));
        ByteBuffer file = ByteBuffer.wrap(Files.readAllBytes(ring.file())).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(4096 + 4096, file.capacity(), "a header page, then the capacity");
        byte[] magic = new byte[8];
        file.get(0, magic);
        assertArrayEquals(new byte[] {'W', 'S', 'R', 'I', 'N', 'G', 1, 0}, magic, "WSRING, then the layout's version");
        assertEquals(4096, file.getInt(8), "capacity, little-endian");
        assertEquals(2040, file.getInt(12), "maxFrameLength, little-endian");
        assertEquals(16, file.getLong(128), "the tail: one record of 8 + 3 bytes, padded to 16");
        assertEquals(0, file.getLong(256), "the head: nothing read");
        ByteBuffer record = file.duplicate().order(ByteOrder.BIG_ENDIAN).position(4096);
        assertEquals(0x01020304, record.getInt(), "the type, big-endian as on the wire");
        assertEquals(3, record.getInt(), "the length, big-endian as on the wire");
        assertEquals('a', record.get());
        assertEquals('b', record.get());
        assertEquals('c', record.get());
        ring.reader().read((type, body) -> { }, 10);
        file = ByteBuffer.wrap(Files.readAllBytes(ring.file())).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(16, file.getLong(256), "the head, past the record read");
    }

    @Test
    void framesOfEverySizeArriveInOrderWrappingTheEndManyTimesThroughCopiesAndClaims() throws IOException {
        SharedRing ring = create(4096);
        RingWriter writer = ring.writer();
        RingReader reader = ring.reader();
        SplittableRandom random = new SplittableRandom(SEED.value());
        ArrayDeque<byte[]> expected = new ArrayDeque<>();
        long[] next = {0};
        int frames = 100_000;
        long written = 0;
        while (next[0] < frames) {
            while (written < frames) { // write until full
                int length = random.nextInt(4) == 0 ? random.nextInt(ring.maxFrameLength() + 1) : random.nextInt(64);
                byte[] b = body(written, length);
                boolean ok;
                if (random.nextBoolean()) {
                    ByteBuffer src = ByteBuffer.wrap(b);
                    ok = writer.offer((int) written, src);
                    assertEquals(ok ? length : 0, src.position(), "the body's position: moved when written, only");
                } else {
                    ByteBuffer claim = writer.tryClaim((int) written, length);
                    ok = claim != null;
                    if (ok) {
                        assertEquals(length, claim.remaining());
                        claim.put(b);
                        writer.commit();
                    }
                }
                if (!ok) {
                    break;
                }
                expected.add(b);
                written++;
            }
            int n = reader.read((type, body) -> {
                assertEquals((int) next[0], type, "type of frame " + next[0]);
                assertArrayEquals(expected.poll(), bytes(body), "body of frame " + next[0]);
                next[0]++;
            }, 1 + random.nextInt(8));
            assertTrue(n > 0 || expected.isEmpty(), "nothing read while " + expected.size() + " frames wait");
        }
        assertEquals(frames, reader.frameCount());
        assertEquals(writer.position(), reader.position(), "every byte written was read");
        assertTrue(writer.position() > 100L * ring.capacity(), "wrapped the ring " + writer.position() / ring.capacity()
                + " times");
    }

    @Test
    void aFullRingPushesBackAndTakesTheFrameOnceTheReaderHasCaughtUp() throws IOException {
        SharedRing ring = create(4096);
        RingWriter writer = ring.writer();
        RingReader reader = ring.reader();
        byte[] b = body(0, 1000); // records of 1,008 bytes: four fit in 4,096
        for (int i = 0; i < 4; i++) {
            assertTrue(writer.offer(i, ByteBuffer.wrap(b)), "frame " + i);
        }
        ByteBuffer src = ByteBuffer.wrap(b);
        assertFalse(writer.offer(4, src), "a fifth does not fit");
        assertEquals(0, src.position(), "nothing taken of a body not written");
        assertNull(writer.tryClaim(4, 1000), "nor a claim");
        assertEquals(4, writer.frameCount());
        assertEquals(1, reader.read((type, body) -> assertEquals(0, type), 1));
        assertTrue(writer.offer(4, src), "room once the reader is done with a frame");
        assertEquals(4, reader.read((type, body) -> { }, 10));
        assertEquals(0, reader.read((type, body) -> { }, 10), "nothing left");
    }

    @Test
    void aFrameThatWouldCrossTheEndIsPaddedToItAndBeginsAtTheStart() throws IOException {
        SharedRing ring = create(4096);
        RingWriter writer = ring.writer();
        RingReader reader = ring.reader();
        assertTrue(writer.offer(1, ByteBuffer.wrap(body(1, 2000)))); // 2,008 bytes
        assertTrue(writer.offer(2, ByteBuffer.wrap(body(2, 1000)))); // 1,008 bytes: 1,080 left to the end
        assertEquals(2, reader.read((type, body) -> { }, 10));
        assertTrue(writer.offer(3, ByteBuffer.wrap(body(3, 1500))), "1,512 bytes: padding 1,080, then at 0");
        assertEquals(2008 + 1008 + 1080 + 1512, writer.position());
        List<Integer> types = new ArrayList<>();
        assertEquals(1, reader.read((type, body) -> {
            types.add(type);
            assertArrayEquals(body(3, 1500), bytes(body));
        }, 10), "the padding is no frame");
        assertEquals(List.of(3), types);
        assertEquals(writer.position(), reader.position());
    }

    @Test
    void aWriterAndAReaderOnTwoThreadsPassHalfAMillionFramesInOrder() throws Exception {
        SharedRing ring = create(64 * 1024);
        RingWriter writer = ring.writer();
        RingReader reader = ring.reader();
        long seed = SEED.value();
        int frames = 500_000;
        CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
            SplittableRandom random = new SplittableRandom(seed);
            for (int i = 0; i < frames; i++) {
                int length = random.nextInt(200);
                ByteBuffer claim;
                while ((claim = writer.tryClaim(i, length)) == null) {
                    Thread.onSpinWait();
                }
                for (int j = 0; j < length; j++) {
                    claim.put((byte) (i + j));
                }
                writer.commit();
            }
        });
        SplittableRandom random = new SplittableRandom(seed);
        long[] next = {0};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(50);
        while (next[0] < frames) {
            assertTrue(System.nanoTime() - deadline < 0, next[0] + " frames read after 50 s");
            assertFalse(writing.isCompletedExceptionally(), () -> "the writer failed: " + writing);
            reader.read((type, body) -> {
                int length = random.nextInt(200);
                if (type != (int) next[0] || body.remaining() != length) {
                    throw new AssertionError("frame " + next[0] + ": type=" + type + " length=" + body.remaining()
                            + ", expected length=" + length);
                }
                for (int j = 0; j < length; j++) {
                    if (body.get(body.position() + j) != (byte) (next[0] + j)) {
                        throw new AssertionError("frame " + next[0] + ": byte " + j + " is "
                                + body.get(body.position() + j) + ", expected " + (byte) (next[0] + j));
                    }
                }
                next[0]++;
            }, 64);
        }
        writing.get(10, TimeUnit.SECONDS);
        assertEquals(writer.position(), reader.position());
    }

    @Test
    void aWriterInAnotherProcessHandsItsFramesToAReaderInThisOne() throws Exception {
        SharedRing ring = create(16 * 1024);
        RingReader reader = ring.reader();
        int frames = 50_000;
        Process child = writerChild(ring, frames);
        CompletableFuture<String> output = output(child);
        long[] next = {0};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(50);
        while (next[0] < frames) {
            assertTrue(System.nanoTime() - deadline < 0, next[0] + " frames read after 50 s; the writer: "
                    + (child.isAlive() ? "running" : "exited " + child.exitValue() + ": " + output.getNow("")));
            reader.read((type, body) -> {
                int length = (int) (next[0] % 300);
                assertEquals((int) next[0], type, "type of frame " + next[0]);
                assertArrayEquals(body(next[0], length), bytes(body), "body of frame " + next[0]);
                next[0]++;
            }, 64);
        }
        assertTrue(child.waitFor(20, TimeUnit.SECONDS), "the writer still runs 20 s after its last frame");
        assertEquals(0, child.exitValue(), output.get(10, TimeUnit.SECONDS));
    }

    @Test
    void aReaderThatTakesWaitsForTheNextFrameAndGivesUpAtItsTimeout() throws Exception {
        SharedRing ring = create(4096);
        RingReader reader = ring.reader();
        RingWriter writer = ring.writer(RingSleep.polling());
        assertEquals(0, reader.take((type, body) -> { }, 10, RingSleep.polling(), java.time.Duration.ofMillis(5)),
                "nothing came within 5 ms");
        assertEquals(0, reader.take((type, body) -> { }, 10, RingSleep.polling(), java.time.Duration.ZERO),
                "one look");
        CompletableFuture<Integer> taken = CompletableFuture.supplyAsync(() -> {
            try {
                int[] type = {-1};
                int n = reader.take((t, body) -> type[0] = t, 10, RingSleep.polling(), java.time.Duration.ofSeconds(20));
                return n == 1 ? type[0] : -n;
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        assertTrue(writer.offer(9, ByteBuffer.allocate(0)));
        assertEquals(9, taken.get(20, TimeUnit.SECONDS), "the frame written while the reader waited");
    }

    @Test
    void aHandlerThatThrowsInATakeThatSleptLeavesTheReaderAwakeInTheHeader() throws Exception {
        SharedRing ring = create(4096);
        RingReader reader = ring.reader();
        RingWriter writer = ring.writer(RingSleep.polling());
        int[] sleeps = {0};
        RingSleep sleepThenWrite = new RingSleep() {
            @Override
            public void sleep(java.lang.foreign.MemorySegment word, int expected, long nanos) {
                assertEquals(1, word.get(java.lang.foreign.ValueLayout.JAVA_INT, 0), "the word while asleep");
                assertEquals(1, sleepingWord(ring), "the header's word while asleep");
                sleeps[0]++;
                assertTrue(writer.offer(7, ByteBuffer.allocate(0)));
            }

            @Override
            public void wake(java.lang.foreign.MemorySegment word) {
            }
        };
        IOException thrown = assertThrows(IOException.class, () -> reader.take((type, body) -> {
            throw new IOException("refused frame of type " + type);
        }, 10, sleepThenWrite, java.time.Duration.ofSeconds(20)));
        assertEquals("refused frame of type 7", thrown.getMessage());
        assertEquals(1, sleeps[0]);
        assertEquals(0, sleepingWord(ring), "the reader no longer says it sleeps, so a writer wakes nobody");
    }

    /** {@return the sleeping word of {@code ring}'s header, read from its file} */
    private static int sleepingWord(SharedRing ring) {
        try {
            byte[] header = Files.readAllBytes(ring.file());
            return ByteBuffer.wrap(header).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt((int) SharedRing.SLEEPING_OFFSET);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** {@return a child process that writes {@code frames} frames into {@code ring} (-1: until killed)} */
    private static Process writerChild(SharedRing ring, int frames) throws IOException {
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        List<String> command = new ArrayList<>(List.of(java));
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("--enable-native-access") || arg.startsWith("--add-")) {
                command.add(arg);
            }
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), SharedRingWriterChild.class.getName(),
                ring.file().toString(), String.valueOf(frames)));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        child.getOutputStream().close();
        return child;
    }

    private static CompletableFuture<String> output(Process child) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    /** A handler that checks each frame is the next of {@link SharedRingWriterChild}'s stream. */
    private static dev.wirespeed.frame.FrameHandler childFrames(long[] next) {
        return (type, body) -> {
            int length = (int) (next[0] % 300);
            assertEquals((int) next[0], type, "type of frame " + next[0]);
            assertArrayEquals(body(next[0], length), bytes(body), "body of frame " + next[0]);
            next[0]++;
        };
    }

    @Test
    void aReaderTakesEveryFrameThenTheEndOnceItsWriterClosedTheRing() throws Exception {
        SharedRing ring = create(16 * 1024);
        RingReader reader = ring.reader();
        Process child = writerChild(ring, 5_000);
        CompletableFuture<String> output = output(child);
        long[] next = {0};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int n;
        while ((n = reader.take(childFrames(next), 64, RingSleep.polling(), java.time.Duration.ofSeconds(20))) >= 0) {
            assertTrue(System.nanoTime() - deadline < 0, next[0] + " frames read after 30 s");
            assertTrue(n > 0 || child.isAlive(), () -> "nothing for 20 s from a writer that exited "
                    + child.exitValue() + ": " + output.getNow(""));
        }
        assertEquals(5_000, next[0], "every frame, then the end");
        assertTrue(child.waitFor(20, TimeUnit.SECONDS));
        assertEquals(0, child.exitValue(), output.get(10, TimeUnit.SECONDS));
    }

    @Test
    void aWriterKilledMidStreamIsReportedOnceEveryFrameItCommittedIsReadAndANewWriterTakesOver() throws Exception {
        SharedRing ring = create(16 * 1024);
        RingReader reader = ring.reader();
        Process child = writerChild(ring, -1);
        output(child);
        long[] next = {0};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20); // the child's start and 10,000 frames
        while (next[0] < 10_000) {
            assertTrue(System.nanoTime() - deadline < 0, next[0] + " frames read after 20 s");
            reader.take(childFrames(next), 64, RingSleep.polling(), java.time.Duration.ofSeconds(1));
        }
        SharedRing other = SharedRing.open(ring.file());
        rings.add(other);
        IllegalStateException held = assertThrows(IllegalStateException.class, other::writer);
        assertTrue(held.getMessage().contains("is held by process " + child.pid() + ", which runs"), held.getMessage());
        child.destroyForcibly(); // mid-stream: perhaps mid-frame
        assertTrue(child.waitFor(20, TimeUnit.SECONDS));
        // A deadline of its own for reading what the child committed and seeing it gone: the first's was
        // the child's start and its frames', which a loaded machine may have used up.
        long goneBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        PeerGoneException gone = null;
        while (gone == null) {
            assertTrue(System.nanoTime() - goneBy < 0, "no PeerGoneException 20 s after the child's end, after "
                    + next[0] + " frames");
            try {
                reader.take(childFrames(next), 64, RingSleep.polling(), java.time.Duration.ofSeconds(5));
            } catch (PeerGoneException e) {
                gone = e;
            }
        }
        assertEquals(child.pid(), gone.pid());
        assertEquals(reader.position(), gone.position(), "every frame it committed read");
        assertTrue(gone.getMessage().contains("process " + child.pid() + ", ended without closing it"),
                gone.getMessage());
        RingWriter successor = ring.writer();
        assertTrue(successor.offer((int) next[0], ByteBuffer.wrap(body(next[0], (int) (next[0] % 300)))));
        assertEquals(1, reader.take(childFrames(next), 64, RingSleep.polling(), java.time.Duration.ofSeconds(20)),
                "the new writer's frame, after the last the killed one committed");
    }

    @Test
    void aWriterSeesItsReaderGoneOnceItClosed() throws Exception {
        SharedRing ring = create(4096);
        RingWriter writer = ring.writer();
        assertFalse(writer.readerGone(), "no reader yet is not a reader gone");
        SharedRing other = SharedRing.open(ring.file());
        rings.add(other);
        other.reader();
        assertFalse(writer.readerGone());
        other.close();
        assertTrue(writer.readerGone(), "its reader closed");
    }

    @Test
    void brokenInputIsRefusedNamingItsValues() throws IOException {
        IllegalArgumentException capacity = assertThrows(IllegalArgumentException.class,
                () -> SharedRing.create(dir.resolve("odd"), 5000));
        assertEquals("capacity=5000: must be a power of two from 4096 to 1073741824", capacity.getMessage());
        SharedRing ring = create(4096);
        assertThrows(FileAlreadyExistsException.class, () -> SharedRing.create(ring.file(), 4096),
                "a ring file another process may use is not made over");
        RingWriter writer = ring.writer();
        IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
                () -> writer.offer(1, ByteBuffer.allocate(2041)));
        assertTrue(tooLong.getMessage().startsWith("frame body length=2041 must be 0 to maxFrameLength=2040"),
                tooLong.getMessage());
        assertThrows(IllegalStateException.class, ring::writer, "one writer per ring");
        Path notARing = dir.resolve("not-a-ring");
        Files.write(notARing, new byte[8192]);
        IOException magic = assertThrows(IOException.class, () -> SharedRing.open(notARing));
        assertEquals("not a shared ring of layout 1: " + notARing + " begins with 0x0, not 0x1474e49525357",
                magic.getMessage());
        Path small = dir.resolve("small");
        Files.write(small, new byte[100]);
        IOException size = assertThrows(IOException.class, () -> SharedRing.open(small));
        assertTrue(size.getMessage().contains("has 100 bytes"), size.getMessage());
        // A record's length broken in the ring's memory, as another program could write it.
        assertTrue(writer.offer(7, ByteBuffer.wrap(body(0, 10))));
        try (FileChannel raw = FileChannel.open(ring.file(), StandardOpenOption.WRITE)) {
            raw.write(ByteBuffer.allocate(4).putInt(0, 5000), 4096 + 4);
        }
        SharedRing opened = SharedRing.open(ring.file());
        rings.add(opened);
        CorruptRingException corrupt = assertThrows(CorruptRingException.class,
                () -> opened.reader().read((type, body) -> { }, 10));
        assertEquals(0, corrupt.position());
        assertTrue(corrupt.getMessage().startsWith("a record at position=0 (offset 0) has length=5000: must be 0 to "
                + "maxFrameLength=2040, or -1 for padding"), corrupt.getMessage());
    }

    @Test
    void framesPassAllocatingNothingOnceWarm() throws Exception {
        SharedRing ring = create(64 * 1024);
        RingWriter writer = ring.writer();
        RingReader reader = ring.reader();
        ByteBuffer body = ByteBuffer.allocateDirect(100);
        long[] sum = {0};
        dev.wirespeed.frame.FrameHandler handler = (type, b) -> sum[0] += type + b.get(b.position());
        // Warmed as the frame reader's and writer's checks are: with only SteadyState's least warm-up, about one
        // run in twenty saw 2,616 bytes (Strings and their arrays) in its first window while the JIT still worked.
        SteadyState.assertAllocatesNothingPerOperation("frames through the ring, copied in and claimed",
                List.of(Thread.currentThread()), 200_000, i -> {
                    writer.offer(i, body.clear());
                    ByteBuffer claim = writer.tryClaim(i, 50);
                    claim.put(claim.position(), (byte) i);
                    writer.commit();
                    if (reader.read(handler, 4) != 2) {
                        throw new AssertionError("operation " + i + ": not two frames read");
                    }
                });
        assertTrue(sum[0] != 0);
    }
}
