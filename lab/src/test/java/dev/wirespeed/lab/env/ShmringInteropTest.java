package dev.wirespeed.lab.env;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.linux.Futex;
import dev.wirespeed.linux.NativeSocket;
import dev.wirespeed.shm.RingReader;
import dev.wirespeed.shm.RingWriter;
import dev.wirespeed.shm.SharedRing;
import dev.wirespeed.testing.Environment;
import dev.wirespeed.testing.Environment.Feature;
import dev.wirespeed.testkit.SequenceStream;
import dev.wirespeed.testkit.SequenceVerifier;
import dev.wirespeed.lab.shm.RingCommands;
import dev.wirespeed.lab.shm.RingCommands.Run;
import dev.wirespeed.lab.shm.Wakes;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The C ring of {@code shmring.c} and the library's {@link SharedRing} read each other's rings: the
 * sequence stream from the C writer through the Java reader, and from the Java writer through the C
 * reader, each frame checked, over a small ring that wraps hundreds of times (padding records included:
 * bodies of 0 to 300 bytes from the Java side, 100 from the C side in a ring whose size is no multiple
 * of the record's); and the idle part's C pair either way round: {@code ring-write --idle-ms} read by
 * {@code shmring read-wakes}, which checks every frame and reports as {@code ring-read --wakes} does, and
 * {@code shmring write-idle} read by the library's reader with {@code ring-read --wakes}'s handler, every
 * frame checked; the stamps of both sides of one clock.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ShmringInteropTest {
    private static final int FRAMES = 200_000;
    /** The idle pairs' warm-up burst, idle period and stamped frames: 2 wake-ups counted. */
    private static final int BURST = 100;
    private static final int IDLE_MS = 200;
    private static final int STAMPED = 3;
    private static final int WARM_WAKES = 20;
    private Path dir;
    private Path shmring;

    @BeforeEach
    void setUp() throws Exception {
        Environment.assume(Feature.NATIVE, NativeSocket.isSupported(), "the futex of the native module: Linux x64");
        List<String> notes = new ArrayList<>();
        Optional<Path> program = new CPrograms(notes::add).get(CPrograms.Program.SHMRING);
        Environment.assume(Feature.C_COMPILER, program.isPresent(), () -> "no C compiler: " + notes);
        shmring = program.get();
        dir = RingCommands.directory("wirespeed-shmring");
    }

    @AfterEach
    void remove() throws IOException {
        RingCommands.delete(dir);
    }

    @Test
    void theJavaReaderReadsTheCWritersSequenceStreamToItsClose() throws Exception {
        Path path = dir.resolve("c-to-java");
        Process writer = new ProcessBuilder(shmring.toString(), "write", path.toString(), "4096",
                String.valueOf(FRAMES), "100", "futex").start();
        try {
            BufferedReader err = new BufferedReader(new InputStreamReader(writer.getErrorStream(), StandardCharsets.UTF_8));
            assertEquals("ring at " + path, err.readLine());
            SequenceVerifier verifier = new SequenceVerifier();
            try (SharedRing ring = SharedRing.open(path)) {
                RingReader reader = ring.reader();
                Futex futex = Futex.create();
                while (reader.take(verifier::verify, 64, futex, Duration.ofSeconds(30)) >= 0) {
                    // until the writer closed its end after its last frame: take returns -1
                }
            }
            assertEquals(FRAMES, verifier.framesVerified());
            assertTrue(writer.waitFor(30, TimeUnit.SECONDS), "the C writer is still running");
            assertEquals(0, writer.exitValue(), Children.drain(writer.getErrorStream()));
        } finally {
            writer.destroyForcibly();
        }
    }

    @Test
    void theCReaderReadsTheJavaWritersSequenceStreamToItsClose() throws Exception {
        Path path = dir.resolve("java-to-c");
        Process reader;
        try (SharedRing ring = SharedRing.create(path, 4096)) {
            RingWriter writer = ring.writer(Futex.create());
            reader = new ProcessBuilder(shmring.toString(), "read", path.toString(), "50000", "0", "futex").start();
            ByteBuffer pattern = ByteBuffer.wrap(SequenceStream.pattern(300));
            for (long i = 0; i < FRAMES; i++) {
                int offset = SequenceStream.patternOffset(i);
                pattern.limit(offset + (int) (i * 7 % 301)).position(offset);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!writer.offer(SequenceStream.type(i), pattern)) {
                    assertTrue(System.nanoTime() - deadline < 0, "the C reader took no frame for 30 s after frame "
                            + i + ": " + (reader.isAlive() ? "it runs" : "it exited " + reader.exitValue()));
                    Thread.onSpinWait();
                }
            }
        } // closing the ring closes the writer's end: the reader reads to the last frame, then ends
        List<ChildReport> reports = Children.reports(reader, "shmring read", 1);
        assertEquals(new ChildReport.Summary(FRAMES, bytes(), true), reports.getLast(), reports.toString());
        assertEquals(FRAMES / 50_000, reports.stream().filter(r -> r instanceof ChildReport.Round).count());
    }

    /** {@return the bytes of the Java writer's frames, headers counted: bodies of {@code i * 7 mod 301}} */
    private static long bytes() {
        long bytes = 0;
        for (long i = 0; i < FRAMES; i++) {
            bytes += 8 + i * 7 % 301;
        }
        return bytes;
    }

    @Test
    void theCWakesReaderChecksTheJavaIdleWritersFramesAndReportsTheirWakeUps() throws Exception {
        Path path = dir.resolve("idle-java-to-c");
        CompletableFuture<Run> writer = RingCommands.start("ring-write", "--path", path.toString(), "--capacity",
                "65536", "--size", "100", "--wake", "futex", "--idle-ms", String.valueOf(IDLE_MS), "--count",
                String.valueOf(STAMPED), "--burst", String.valueOf(BURST), "--warm-wakes", String.valueOf(WARM_WAKES));
        Process reader = new ProcessBuilder(shmring.toString(), "read-wakes", path.toString()).start();
        List<ChildReport> reports = Children.reports(reader, "shmring read-wakes", 1);
        assertEquals(ExitCode.OK, writer.get(30, TimeUnit.SECONDS).code());
        assertEquals(1, reports.size(), reports.toString());
        ChildReport.Wakes wakes = (ChildReport.Wakes) reports.getFirst();
        assertWokenAfterIdle(wakes);
        assertTrue(wakes.cpuShare() < 0.5, "the C reader, asleep while nothing came, used little of a core: " + wakes);
    }

    @Test
    void theJavaWakesReaderTakesTheCIdleWritersFramesAsTheJavaWriterSendsThem() throws Exception {
        Path path = dir.resolve("idle-c-frames");
        Process writer = new ProcessBuilder(shmring.toString(), "write-idle", path.toString(), "65536",
                String.valueOf(STAMPED), "100", String.valueOf(IDLE_MS), String.valueOf(BURST),
                String.valueOf(WARM_WAKES)).start();
        try {
            BufferedReader err = new BufferedReader(new InputStreamReader(writer.getErrorStream(), StandardCharsets.UTF_8));
            assertEquals("ring at " + path, err.readLine());
            List<Long> stamps = new ArrayList<>();
            long[] frames = {0};
            Wakes wakes = new Wakes();
            try (SharedRing ring = SharedRing.open(path)) {
                RingReader reader = ring.reader();
                Futex futex = Futex.create();
                FrameHandler check = (type, body) -> {
                    assertEquals(SequenceStream.type(frames[0]), type);
                    assertEquals(100, body.remaining());
                    for (int k = 8; k < 100; k++) {
                        assertEquals(0, body.get(body.position() + k), "frame " + frames[0] + " byte " + k);
                    }
                    stamps.add(body.getLong(body.position()));
                    frames[0]++;
                    wakes.onFrame(type, body);
                };
                while (reader.take(check, 64, futex, Duration.ofSeconds(30)) >= 0) {
                    // until the writer closed its end after its last frame
                }
            }
            int unstamped = BURST + WARM_WAKES;
            assertEquals(unstamped + STAMPED, frames[0]);
            assertTrue(stamps.subList(0, unstamped).stream().allMatch(t -> t == 0),
                    "the burst's and the warm wake-ups' frames carry 0: " + stamps.subList(0, unstamped));
            List<Long> sent = stamps.subList(unstamped, unstamped + STAMPED);
            for (int i = 1; i < STAMPED; i++) {
                assertTrue(sent.get(i) - sent.get(i - 1) >= TimeUnit.MILLISECONDS.toNanos(IDLE_MS), "stamps " + sent
                        + " are an idle period apart at least");
            }
            assertWokenAfterIdle(wakes.report());
            assertTrue(writer.waitFor(30, TimeUnit.SECONDS), "the C writer is still running");
            assertEquals(0, writer.exitValue(), Children.drain(writer.getErrorStream()));
        } finally {
            writer.destroyForcibly();
        }
    }

    /**
     * Checks a report of {@value #STAMPED} frames after {@value #IDLE_MS} ms idle periods: every stamped frame
     * but the first counted, about an idle period apart, each reaching the reader well within a second of
     * its stamp (one clock on both sides).
     */
    private static void assertWokenAfterIdle(ChildReport.Wakes wakes) {
        assertEquals(STAMPED - 1, wakes.wakes(), wakes.toString());
        assertTrue(wakes.idleMs() >= IDLE_MS / 2 && wakes.idleMs() < 20 * IDLE_MS, wakes.toString());
        assertTrue(wakes.p50() > 0 && wakes.p50() <= wakes.max() && wakes.max() < 1e6, wakes.toString());
    }

    @Test
    void theCWakesReaderRefusesAFrameWhoseBytesPastTheStampAreNotZeroNamingIt() throws Exception {
        Path path = dir.resolve("idle-bad");
        Process reader;
        try (SharedRing ring = SharedRing.create(path, 65536)) {
            RingWriter writer = ring.writer(Futex.create());
            reader = new ProcessBuilder(shmring.toString(), "read-wakes", path.toString()).redirectErrorStream(true)
                    .start();
            ByteBuffer body = ByteBuffer.allocate(100);
            assertTrue(writer.offer(0, body.clear()));
            body.put(50, (byte) 7);
            assertTrue(writer.offer(1, body.clear()));
        }
        String out = Children.drain(reader.getInputStream());
        assertTrue(reader.waitFor(30, TimeUnit.SECONDS));
        assertEquals(4, reader.exitValue(), out);
        assertEquals("shmring: frame 1 byte 50 is 7, not 0", out.strip());
    }

    @Test
    void theCIdleWriterRefusesABodyTooShortForItsStampNamingIt() throws Exception {
        Process p = new ProcessBuilder(shmring.toString(), "write-idle", dir.resolve("short").toString(), "65536", "2",
                "4", "10", "0").redirectErrorStream(true).start();
        String out = Children.drain(p.getInputStream());
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(2, p.exitValue(), out);
        assertEquals("shmring: CAPACITY=65536 must be a power of two from 4096 to 1073741824, COUNT=2 >= 0, SIZE=4 >= 8 "
                + "(the stamp), IDLE_MS=10 >= 0, BURST=0 >= 0, WARM_WAKES=0 >= 0", out.strip());
    }

    @Test
    void theCProgramRefusesACapacityThatIsNoPowerOfTwoNamingIt() throws Exception {
        Process p = new ProcessBuilder(shmring.toString(), "write", dir.resolve("odd").toString(), "5000", "1", "100",
                "none").redirectErrorStream(true).start();
        String out = Children.drain(p.getInputStream());
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(2, p.exitValue(), out);
        assertEquals("shmring: CAPACITY=5000 must be a power of two from 4096 to 1073741824, COUNT=1 >= 0, SIZE=100 >= 0",
                out);
    }

    @Test
    void theFutexProbeReportsEveryWakeButTheFirst() throws Exception {
        Process p = new ProcessBuilder(shmring.toString(), "futex", "3", "20", "-1", "-1").start();
        List<ChildReport> reports = Children.reports(p, "shmring futex", 1);
        assertEquals(1, reports.size(), reports.toString());
        ChildReport.Wakes wakes = (ChildReport.Wakes) reports.getFirst();
        assertEquals(2, wakes.wakes());
        assertEquals(20, wakes.idleMs());
        assertTrue(wakes.p50() > 0 && wakes.p50() <= wakes.max(), wakes.toString());
    }
}
