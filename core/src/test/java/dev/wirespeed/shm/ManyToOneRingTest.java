package dev.wirespeed.shm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.testing.Seed;
import dev.wirespeed.testing.SteadyState;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The many-to-one ring's contract: its layout byte by byte as {@code docs/shared-ring.md} states it; the
 * numbered streams of many writers, on threads and in child processes, each in its own order and every
 * byte right, with frames of every size wrapping the ring many times; a full ring pushing back; an open
 * claim stopping the reader, and a writer killed between its claim and its commit reported with the
 * claim's position and passed over; a sleeping reader woken by committing writers; the other kind of
 * ring file refused by name; broken input refused naming its values; nothing allocated per frame.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ManyToOneRingTest {
    @RegisterExtension
    static final Seed SEED = Seed.fromPropertyOrNew();
    private static final FrameHandler IGNORE = (type, body) -> { };

    private Path dir;
    private final List<AutoCloseable> open = new ArrayList<>();
    private final List<Process> children = new ArrayList<>();

    @BeforeEach
    void makeDirectory() throws IOException {
        Path shm = Path.of("/dev/shm");
        dir = Files.createTempDirectory(Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(
                System.getProperty("java.io.tmpdir")), "wirespeed-many-test");
    }

    @AfterEach
    void removeFiles() throws Exception {
        for (Process p : children) {
            p.destroyForcibly();
        }
        for (AutoCloseable r : open) {
            r.close();
        }
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
        Files.delete(dir);
    }

    private ManyToOneRing create(int capacity) throws IOException {
        ManyToOneRing r = ManyToOneRing.create(dir.resolve("ring-" + open.size()), capacity);
        open.add(r);
        return r;
    }

    private ManyToOneRing reopen(ManyToOneRing ring) throws IOException {
        ManyToOneRing r = ManyToOneRing.open(ring.file());
        open.add(r);
        return r;
    }

    private static ByteBuffer file(ManyToOneRing ring) throws IOException {
        return ByteBuffer.wrap(Files.readAllBytes(ring.file())).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The body of a test frame: {@code length} bytes, each {@code i + j}. */
    private static byte[] body(int i, int length) {
        byte[] b = new byte[length];
        for (int j = 0; j < length; j++) {
            b[j] = (byte) (i + j);
        }
        return b;
    }

    /** A handler that adds each frame's type to {@code types}. */
    private static FrameHandler types(List<Integer> types) {
        return (type, body) -> types.add(type);
    }

    @Test
    void theLayoutIsAsDocumentedByteByByte() throws IOException {
        ManyToOneRing ring = create(4096);
        assertEquals(2040, ring.maxFrameLength(), "half the capacity less the 8-byte header");
        ManyToOneWriter writer = ring.writer();
        assertTrue(writer.offer(0x01020304, ByteBuffer.wrap("abc".getBytes(StandardCharsets.US_ASCII))));
        ByteBuffer file = file(ring);
        assertEquals(12288 + 4096, file.capacity(), "a header of three pages, then the capacity");
        byte[] magic = new byte[8];
        file.get(0, magic);
        assertArrayEquals(new byte[] {'W', 'S', 'R', 'I', 'N', 'G', 2, 0}, magic, "WSRING, then the layout's version");
        assertEquals(4096, file.getInt(8), "capacity, little-endian");
        assertEquals(2040, file.getInt(12), "maxFrameLength, little-endian");
        assertEquals(64, file.getInt(16), "writer slots");
        assertEquals(16, file.getLong(128), "the claim counter: one record of 8 + 3 bytes, padded to 16");
        assertEquals(0, file.getLong(256), "the head: nothing read");
        assertEquals(ProcessHandle.current().pid(), file.getLong(4096), "slot 0: the writer's process");
        assertTrue(file.getLong(4096 + 8) != 0, "slot 0: its start time");
        assertEquals(0, file.getLong(4096 + 16), "slot 0: the claim it announced, at position 0");
        assertEquals(16, file.getInt(4096 + 24), "slot 0: of 16 bytes");
        assertEquals(0, file.getLong(4096 + 128), "slot 1: never held");
        assertEquals(-1, file.getLong(4096 + 128 + 16), "slot 1: no claim");
        assertEquals(11, file.getInt(12288), "the commit word, little-endian: the record's 8 + 3 bytes");
        ByteBuffer record = file.duplicate().order(ByteOrder.BIG_ENDIAN).position(12288 + 4);
        assertEquals(0x01020304, record.getInt(), "the type, big-endian as on the wire");
        assertEquals('a', record.get());
        assertEquals('b', record.get());
        assertEquals('c', record.get());
        ManyToOneReader reader = ring.reader();
        assertEquals(1, reader.read(IGNORE, 10));
        file = file(ring);
        assertEquals(ProcessHandle.current().pid(), file.getLong(640), "the reader's slot, as in layout 1");
        assertEquals(16, file.getLong(256), "the head, past the record read");
        for (int i = 0; i < 16; i++) {
            assertEquals(0, file.get(12288 + i), "byte " + i + " of the record read, zero again");
        }
        writer.close();
        file = file(ring);
        assertEquals(-1, file.getLong(4096), "slot 0 closed");
        assertEquals(-1, file.getLong(4096 + 16), "slot 0: no claim");
    }

    @Test
    void aClaimThatWouldCrossTheEndIsPaddedAndThePaddingCommittedAfterTheFrame() throws IOException {
        ManyToOneRing ring = create(4096);
        ManyToOneWriter writer = ring.writer();
        ManyToOneReader reader = ring.reader();
        assertTrue(writer.offer(1, ByteBuffer.wrap(body(1, 2000)))); // 2,008 bytes
        assertTrue(writer.offer(2, ByteBuffer.wrap(body(2, 1000)))); // 1,008 bytes: 1,080 left to the end
        assertEquals(2, reader.read(IGNORE, 10));
        ByteBuffer claim = writer.tryClaim(3, 1500); // 1,512 bytes: padding of 1,080, then at 0
        assertNotNull(claim);
        claim.put(body(3, 1500));
        ByteBuffer file = file(ring);
        assertEquals(0, file.getInt(12288 + 3016), "the padding's word: not yet committed");
        assertEquals(0, file.getInt(12288), "the frame's word: not yet committed");
        assertEquals(3016, file.getLong(4096 + 16), "the claim announced where the padding begins");
        assertEquals(1080 + 1512, file.getInt(4096 + 24), "and its bytes, the padding's and the record's");
        writer.commit();
        file = file(ring);
        assertEquals(-1080, file.getInt(12288 + 3016), "the padding: a skip to the end");
        assertEquals(1508, file.getInt(12288), "the frame: 8 + 1,500 bytes");
        List<Integer> types = new ArrayList<>();
        assertEquals(1, reader.read((type, body) -> {
            types.add(type);
            byte[] b = new byte[body.remaining()];
            body.get(b);
            assertArrayEquals(body(3, 1500), b);
        }, 10), "the padding is no frame");
        assertEquals(List.of(3), types);
        assertEquals(3016 + 1080 + 1512, reader.position());
    }

    @Test
    void manyWriterThreadsEachPassTheirNumberedStreamInOrderWrappingTheRingManyTimes() throws Exception {
        ManyToOneRing ring = create(16 * 1024);
        ManyToOneReader reader = ring.reader();
        int writers = 4;
        int frames = 20_000;
        long seed = SEED.value();
        List<CompletableFuture<Void>> writing = new ArrayList<>();
        for (int id = 0; id < writers; id++) {
            ManyToOneWriter writer = ring.writer();
            int w = id;
            writing.add(CompletableFuture.runAsync(() -> writeStream(ring, writer, w, frames, seed), runner(w)));
        }
        WriterStream[] streams = new WriterStream[writers];
        for (int id = 0; id < writers; id++) {
            streams[id] = new WriterStream(id, seed, ring.maxFrameLength());
        }
        readAll(reader, streams, writers * frames, () -> writing.stream().filter(
                CompletableFuture::isCompletedExceptionally).map(Object::toString).findFirst().orElse("running"));
        for (CompletableFuture<Void> w : writing) {
            w.get(10, TimeUnit.SECONDS);
        }
        assertTrue(reader.position() > 100L * ring.capacity(), "wrapped the ring " + reader.position()
                / ring.capacity() + " times");
        assertEquals(0, reader.read(IGNORE, 10), "nothing more");
    }

    /** {@return an executor that runs each task on a new thread named for writer {@code id}} */
    private static java.util.concurrent.Executor runner(int id) {
        return task -> Thread.ofPlatform().name("ring-writer-" + id).start(task);
    }

    /**
     * Writes writer {@code id}'s stream of {@code frames}, by copies and claims at random, with a claim
     * aborted now and then, yielding while the ring is full.
     */
    private static void writeStream(ManyToOneRing ring, ManyToOneWriter writer, int id, int frames, long seed) {
        WriterStream stream = new WriterStream(id, seed, ring.maxFrameLength());
        SplittableRandom random = new SplittableRandom(seed ^ id);
        ByteBuffer body = ByteBuffer.allocate(ring.maxFrameLength());
        for (int seq = 0; seq < frames; seq++) {
            int length = stream.nextLength();
            if (random.nextInt(64) == 0) { // a claim aborted: the reader sees nothing of it
                ByteBuffer dropped;
                while ((dropped = writer.tryClaim(stream.type(seq), length)) == null) {
                    Thread.yield();
                }
                if (length > 0) {
                    dropped.put(dropped.position(), (byte) 1);
                }
                writer.abort();
            }
            if (random.nextBoolean()) {
                body.clear();
                stream.fill(body, seq, length);
                body.flip();
                while (!writer.offer(stream.type(seq), body)) {
                    Thread.yield();
                }
            } else {
                ByteBuffer claim;
                while ((claim = writer.tryClaim(stream.type(seq), length)) == null) {
                    Thread.yield();
                }
                stream.fill(claim, seq, length);
                writer.commit();
            }
        }
        writer.close();
    }

    /**
     * Reads {@code frames} frames within 50 s, each the next of its writer's stream, yielding while none
     * waits; {@code writers} says how the writers are, for a failure.
     */
    private static void readAll(ManyToOneReader reader, WriterStream[] streams, int frames,
            java.util.function.Supplier<String> writers) throws IOException {
        long[] read = {0};
        FrameHandler check = (type, body) -> {
            streams[type >>> 24].expect(type & 0xFF_FFFF, body);
            read[0]++;
        };
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(50);
        while (read[0] < frames) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(read[0] + " of " + frames + " frames read after 50 s; the writers: "
                        + writers.get());
            }
            if (reader.read(check, 64) == 0) {
                Thread.yield();
            }
        }
    }

    @Test
    void writersInChildProcessesAndAThreadEachPassTheirStreamInOrder() throws Exception {
        ManyToOneRing ring = create(16 * 1024);
        ManyToOneReader reader = ring.reader();
        long seed = SEED.value();
        int frames = 10_000;
        List<CompletableFuture<String>> outputs = new ArrayList<>();
        for (int id = 1; id <= 2; id++) {
            Process child = child("write", ring.file().toString(), String.valueOf(id), String.valueOf(frames),
                    String.valueOf(seed));
            child.getOutputStream().close();
            outputs.add(output(child));
        }
        ManyToOneWriter mine = ring.writer();
        CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> writeStream(ring, mine, 0, frames, seed),
                runner(0));
        WriterStream[] streams = new WriterStream[3];
        for (int id = 0; id < 3; id++) {
            streams[id] = new WriterStream(id, seed, ring.maxFrameLength());
        }
        readAll(reader, streams, 3 * frames, () -> "this one's " + writing + "; the children: " + children.stream()
                .map(p -> p.isAlive() ? "running" : "exited " + p.exitValue()).toList() + " " + outputs.stream()
                .map(o -> o.getNow("")).toList());
        writing.get(10, TimeUnit.SECONDS);
        for (int i = 0; i < 2; i++) {
            Process child = children.get(i);
            assertTrue(child.waitFor(20, TimeUnit.SECONDS), "child " + child.pid() + " runs 20 s after its last frame");
            assertEquals(0, child.exitValue(), outputs.get(i).get(10, TimeUnit.SECONDS));
        }
        assertTrue(reader.position() > 100L * ring.capacity(), "wrapped the ring " + reader.position()
                / ring.capacity() + " times");
        assertEquals(0, reader.read(IGNORE, 10), "nothing more");
    }

    @Test
    void aFullRingPushesBackEveryWriterUntilTheReaderGivesBytesBack() throws IOException {
        ManyToOneRing ring = create(4096);
        ManyToOneWriter a = ring.writer();
        ManyToOneWriter b = ring.writer();
        ManyToOneReader reader = ring.reader();
        byte[] body = body(0, 1000); // records of 1,008 bytes: four fit in 4,096
        for (int i = 0; i < 4; i++) {
            assertTrue((i % 2 == 0 ? a : b).offer(i, ByteBuffer.wrap(body)), "frame " + i);
        }
        ByteBuffer src = ByteBuffer.wrap(body);
        assertFalse(a.offer(4, src), "a fifth does not fit");
        assertEquals(0, src.position(), "nothing taken of a body not written");
        assertFalse(b.offer(4, src), "for no writer");
        assertNull(b.tryClaim(4, 1000), "nor as a claim");
        assertNotNull(b.tryClaim(5, 8), "a smaller frame fits the 64 bytes left");
        b.commit();
        assertEquals(2, a.frameCount());
        assertEquals(3, b.frameCount());
        List<Integer> types = new ArrayList<>();
        assertEquals(1, reader.read(types(types), 1));
        assertTrue(a.offer(4, src), "room once the reader gave a frame's bytes back");
        assertEquals(5, reader.read(types(types), 10));
        assertEquals(List.of(0, 1, 2, 3, 5, 4), types, "in claim order");
    }

    @Test
    void anOpenClaimStopsTheReaderUntilCommittedWhileItsWriterRuns() throws Exception {
        ManyToOneRing ring = create(4096);
        ManyToOneWriter slow = ring.writer();
        ManyToOneWriter fast = ring.writer();
        ManyToOneReader reader = ring.reader();
        ByteBuffer claim = slow.tryClaim(1, 10);
        assertTrue(fast.offer(2, ByteBuffer.wrap(body(2, 10))));
        assertEquals(0, reader.read(IGNORE, 10), "the committed frame waits behind the open claim");
        assertEquals(0, reader.take(IGNORE, 10, RingSleep.polling(), Duration.ofMillis(300)),
                "and stays there while its writer runs, looked at after 100 ms");
        claim.put(body(1, 10));
        slow.commit();
        List<Integer> types = new ArrayList<>();
        assertEquals(2, reader.read(types(types), 10));
        assertEquals(List.of(1, 2), types, "in claim order");
    }

    @Test
    void anAbortedClaimAndAClosedWritersOpenClaimAreSteppedOver() throws IOException {
        ManyToOneRing ring = create(4096);
        ManyToOneWriter writer = ring.writer();
        ManyToOneWriter other = ring.writer();
        ManyToOneReader reader = ring.reader();
        ByteBuffer dropped = writer.tryClaim(1, 100);
        assertNotNull(dropped);
        dropped.put(body(1, 100));
        writer.abort();
        assertNotNull(other.tryClaim(2, 20));
        other.close(); // aborts its claim
        assertTrue(writer.offer(3, ByteBuffer.allocate(0)));
        List<Integer> types = new ArrayList<>();
        assertEquals(1, reader.read(types(types), 10));
        assertEquals(List.of(3), types, "only the committed frame");
        assertEquals(112 + 32 + 8, reader.position(), "past both skips");
        IllegalStateException closed = assertThrows(IllegalStateException.class, () -> other.offer(4,
                ByteBuffer.allocate(0)));
        assertTrue(closed.getMessage().startsWith("the writer is closed: ManyToOneWriter["), closed.getMessage());
    }

    @Test
    void aWriterKilledBetweenClaimAndCommitIsReportedWithThePositionAndPassedOver() throws Exception {
        ManyToOneRing ring = create(4096);
        ManyToOneReader reader = ring.reader();
        ManyToOneWriter writer = ring.writer();
        assertTrue(writer.offer(1, ByteBuffer.wrap(body(1, 30))));
        assertEquals(1, reader.read(IGNORE, 10));
        long position = reader.position();
        Process child = child("claim", ring.file().toString());
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        String line = CompletableFuture.supplyAsync(() -> {
            try {
                String l;
                while ((l = out.readLine()) != null && !l.equals("claimed")) {
                    // the JVM's own warnings
                }
                return l;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }).get(30, TimeUnit.SECONDS);
        assertEquals("claimed", line, "the child's claim is open");
        assertTrue(writer.offer(2, ByteBuffer.wrap(body(2, 40))), "a frame claimed after the child's");
        assertEquals(0, reader.take(IGNORE, 10, RingSleep.polling(), Duration.ofMillis(300)),
                "stopped at the open claim of a process that runs");
        child.destroyForcibly();
        assertTrue(child.waitFor(20, TimeUnit.SECONDS), "the child still runs 20 s after it was killed");
        PeerGoneException gone = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (gone == null) {
            assertTrue(System.nanoTime() - deadline < 0, "no PeerGoneException 20 s after the child died");
            try {
                assertEquals(0, reader.take(IGNORE, 10, RingSleep.polling(), Duration.ofSeconds(1)),
                        "nothing handed over before the lost claim is passed");
            } catch (PeerGoneException e) {
                gone = e;
            }
        }
        assertEquals(child.pid(), gone.pid());
        assertEquals(position, gone.position(), "the lost claim's position");
        assertEquals("a writer of " + ring.file() + ", process " + child.pid() + ", ended with its claim at position="
                + position + " (offset " + position + ") not committed: its 112 bytes are passed over and the frame in"
                + " them lost; every frame before it was handed over, and those after it come next", gone.getMessage());
        List<Integer> types = new ArrayList<>();
        assertEquals(1, reader.take(types(types), 10, RingSleep.polling(), Duration.ofSeconds(20)));
        assertEquals(List.of(2), types, "the frame claimed after the lost one");
        ByteBuffer file = file(ring);
        for (int i = 0; i < 112 + 48; i++) {
            assertEquals(0, file.get(12288 + (int) position + i), "byte " + i + " of the lost claim and the next");
        }
        ManyToOneWriter successor = ring.writer();
        assertEquals("ManyToOneWriter[" + ring + " slot=1 frames=0]", successor.toString(), "the dead child's slot");
        assertTrue(successor.offer(3, ByteBuffer.allocate(0)), "the ring goes on");
    }

    @Test
    void aClaimOpenWhenItsRingObjectClosedIsReportedAsAClosedWritersAndPassedOver() throws Exception {
        ManyToOneRing ring = create(4096);
        ManyToOneReader reader = ring.reader();
        ManyToOneRing other = reopen(ring);
        assertNotNull(other.writer().tryClaim(1, 16));
        assertTrue(ring.writer().offer(2, ByteBuffer.allocate(0)));
        other.close();
        PeerGoneException gone = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (gone == null) {
            assertTrue(System.nanoTime() - deadline < 0, "no PeerGoneException 20 s after the ring closed");
            try {
                reader.take(IGNORE, 10, RingSleep.polling(), Duration.ofSeconds(1));
            } catch (PeerGoneException e) {
                gone = e;
            }
        }
        assertEquals(-1, gone.pid(), "no process: an end closed");
        assertEquals(0, gone.position());
        assertTrue(gone.getMessage().startsWith("a writer of " + ring.file() + " was closed with its claim at "
                + "position=0 (offset 0) not committed: its 24 bytes are passed over"), gone.getMessage());
        List<Integer> types = new ArrayList<>();
        assertEquals(1, reader.read(types(types), 10));
        assertEquals(List.of(2), types);
    }

    /**
     * A reader asleep (parked, its word 1) is woken by the first commit; then writers that commit in bursts
     * with pauses of up to 50 microseconds, so that the reader falls asleep between many of them, and so
     * often just as a frame comes: every frame arrives within 20 s, where the reader's sleep lasts 20 s
     * unless a committing writer wakes it.
     */
    @Test
    void aSleepingReaderIsWokenByTheWriterThatCommits() throws Exception {
        ManyToOneRing ring = create(64 * 1024);
        ManyToOneReader reader = ring.reader();
        ParkingSleep sleep = new ParkingSleep(Thread.currentThread());
        int writers = 2;
        int frames = 10_000;
        long seed = SEED.value();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        List<CompletableFuture<Void>> writing = new ArrayList<>();
        for (int id = 0; id < writers; id++) {
            int w = id;
            ManyToOneWriter writer = ring.writer(sleep);
            writing.add(CompletableFuture.runAsync(() -> {
                if (w == 0) { // the first frame once the reader sleeps
                    while (sleep.parks() == 0) {
                        assertTrue(System.nanoTime() - deadline < 0, "the reader not asleep after 20 s");
                        Thread.yield();
                    }
                }
                SplittableRandom random = new SplittableRandom(seed + w);
                ByteBuffer body = ByteBuffer.allocate(4);
                for (int i = 0; i < frames; i++) {
                    body.clear().putInt(0, i);
                    while (!writer.offer(w << 24 | i, body)) {
                        Thread.yield();
                    }
                    if (random.nextInt(4) == 0) {
                        LockSupport.parkNanos(random.nextInt(50_000));
                    }
                }
            }, runner(w)));
            if (w == 0) {
                int[] first = {-1};
                assertEquals(1, reader.take((type, body) -> first[0] = type, 1, sleep, Duration.ofSeconds(30)));
                assertEquals(0, first[0], "writer 0's first frame");
            }
        }
        int[] next = {1, 0};
        while (next[0] + next[1] < writers * frames) {
            assertTrue(System.nanoTime() - deadline < 0, next[0] + " and " + next[1] + " of " + frames
                    + " frames after 20 s");
            reader.take((type, body) -> {
                int w = type >>> 24;
                assertEquals(next[w], type & 0xFF_FFFF, "writer " + w + "'s frame");
                assertEquals(next[w]++, body.getInt(body.position()));
            }, 64, sleep, Duration.ofSeconds(30));
        }
        for (CompletableFuture<Void> w : writing) {
            w.get(10, TimeUnit.SECONDS);
        }
        assertTrue(sleep.wakes() > 0, "the reader slept " + sleep.parks() + " times and no writer woke it");
    }

    /**
     * A sleep for a reader thread in this process that parks for 20 s while the word holds its value,
     * longer than asked, so that a wake missed shows as a stall; a wake unparks it.
     */
    private static final class ParkingSleep implements RingSleep {
        private final Thread reader;
        private final AtomicInteger parks = new AtomicInteger();
        private final AtomicInteger wakes = new AtomicInteger();

        ParkingSleep(Thread reader) {
            this.reader = reader;
        }

        int parks() {
            return parks.get();
        }

        int wakes() {
            return wakes.get();
        }

        @Override
        public void sleep(MemorySegment word, int expected, long nanos) {
            if ((int) SharedRing.INT.getVolatile(word, 0L) == expected) {
                parks.incrementAndGet();
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(20));
            }
        }

        @Override
        public void wake(MemorySegment word) {
            wakes.incrementAndGet();
            LockSupport.unpark(reader);
        }
    }

    @Test
    void theOtherKindOfRingFileIsRefusedNamingWhatItHolds() throws IOException {
        ManyToOneRing many = create(4096);
        IOException asOne = assertThrows(IOException.class, () -> SharedRing.open(many.file()));
        assertEquals(many.file() + " holds a many-to-one shared ring (many writers, one reader), layout 2, not a "
                + "one-to-one shared ring (one writer, one reader), layout 1: open it with ManyToOneRing.open",
                asOne.getMessage());
        try (SharedRing one = SharedRing.create(dir.resolve("one"), 4096)) {
            IOException asMany = assertThrows(IOException.class, () -> ManyToOneRing.open(one.file()));
            assertEquals(one.file() + " holds a one-to-one shared ring (one writer, one reader), layout 1, not a "
                    + "many-to-one shared ring (many writers, one reader), layout 2: open it with SharedRing.open",
                    asMany.getMessage());
        }
        Path notARing = dir.resolve("not-a-ring");
        Files.write(notARing, new byte[16384]);
        IOException magic = assertThrows(IOException.class, () -> ManyToOneRing.open(notARing));
        assertEquals("not a shared ring of layout 2: " + notARing + " begins with 0x0, not 0x2474e49525357",
                magic.getMessage());
    }

    @Test
    void brokenInputIsRefusedNamingItsValues() throws IOException {
        IllegalArgumentException capacity = assertThrows(IllegalArgumentException.class,
                () -> ManyToOneRing.create(dir.resolve("odd"), 5000));
        assertEquals("capacity=5000: must be a power of two from 4096 to 1073741824", capacity.getMessage());
        ManyToOneRing ring = create(4096);
        ManyToOneWriter writer = ring.writer();
        IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
                () -> writer.offer(1, ByteBuffer.allocate(2041)));
        assertEquals("frame body length=2041 must be 0 to maxFrameLength=2040 (half the capacity=4096 less the 8-byte "
                + "header) for " + ring, tooLong.getMessage());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> writer.tryClaim(1, -1));
        assertTrue(negative.getMessage().startsWith("frame body length=-1 must be 0 to maxFrameLength=2040"),
                negative.getMessage());
        assertNotNull(writer.tryClaim(1, 0));
        IllegalStateException outstanding = assertThrows(IllegalStateException.class, () -> writer.tryClaim(2, 0));
        assertTrue(outstanding.getMessage().startsWith("a claim is outstanding: commit or abort it first; "),
                outstanding.getMessage());
        writer.commit();
        IllegalStateException noClaim = assertThrows(IllegalStateException.class, writer::commit);
        assertTrue(noClaim.getMessage().startsWith("commit without a claim: frame 1 of ManyToOneWriter["),
                noClaim.getMessage());
        // A commit word broken in the ring's memory, as another program could write it.
        assertTrue(writer.offer(7, ByteBuffer.wrap(body(0, 10))));
        try (FileChannel raw = FileChannel.open(ring.file(), StandardOpenOption.WRITE)) {
            raw.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 5000), 12288 + 8);
        }
        ManyToOneReader reader = ring.reader();
        CorruptRingException corrupt = assertThrows(CorruptRingException.class, () -> reader.read(IGNORE, 10));
        assertEquals(8, corrupt.position());
        assertEquals("a record at position=8 (offset 8) has commit word=5000: a frame's must be 8 to "
                + "maxFrameLength+8=2048, a skip's a multiple of 8 from -8 to -4088, in " + ring, corrupt.getMessage());
        assertEquals(1, reader.frameCount(), "the frame before it handed over");
    }

    @Test
    void everyWriterSlotTakenRefusesTheNextWriterAndAClosedOnesSlotIsTakenAgain() throws IOException {
        ManyToOneRing ring = create(4096);
        List<ManyToOneWriter> writers = new ArrayList<>();
        for (int i = 0; i < ManyToOneRing.MAX_WRITERS; i++) {
            writers.add(ring.writer());
        }
        IllegalStateException full = assertThrows(IllegalStateException.class, ring::writer);
        assertEquals("no writer slot free in " + ring.file() + ": all 64 are taken, 64 by live processes (64 by this "
                + "one), 0 by closed or gone writers whose last claim the reader has not passed, at head=0",
                full.getMessage());
        writers.get(17).close();
        assertEquals("ManyToOneWriter[" + ring + " slot=17 frames=0]", ring.writer().toString(), "the slot closed");
    }

    @Test
    void aWriterSeesTheReaderGoneOnceItClosed() throws Exception {
        ManyToOneRing ring = create(4096);
        ManyToOneWriter writer = ring.writer();
        assertFalse(writer.readerGone(), "no reader yet is not a reader gone");
        ManyToOneRing other = reopen(ring);
        other.reader();
        assertFalse(writer.readerGone());
        other.close();
        assertTrue(writer.readerGone(), "its reader closed");
    }

    @Test
    void framesPassAllocatingNothingOnceWarm() throws Exception {
        ManyToOneRing ring = create(64 * 1024);
        ManyToOneWriter copying = ring.writer();
        ManyToOneWriter claiming = ring.writer(new ParkingSleep(Thread.currentThread()));
        ManyToOneReader reader = ring.reader();
        ByteBuffer body = ByteBuffer.allocateDirect(100);
        long[] sum = {0};
        FrameHandler handler = (type, b) -> sum[0] += type + b.get(b.position());
        SteadyState.assertAllocatesNothingPerOperation("frames through the many-to-one ring, copied in and claimed",
                List.of(Thread.currentThread()), 200_000, i -> {
                    copying.offer(i, body.clear());
                    ByteBuffer claim = claiming.tryClaim(i, 50);
                    claim.put(claim.position(), (byte) i);
                    claiming.commit();
                    if (reader.read(handler, 4) != 2) {
                        throw new AssertionError("operation " + i + ": not two frames read");
                    }
                });
        assertTrue(sum[0] != 0);
    }

    /** {@return a child JVM running {@link ManyToOneWriterChild} with {@code args}, killed after the test} */
    private Process child(String... args) throws IOException {
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        List<String> command = new ArrayList<>(List.of(java));
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("--enable-native-access") || arg.startsWith("--add-")) {
                command.add(arg);
            }
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ManyToOneWriterChild.class.getName()));
        command.addAll(List.of(args));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        children.add(child);
        return child;
    }

    private static CompletableFuture<String> output(Process child) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }
}
