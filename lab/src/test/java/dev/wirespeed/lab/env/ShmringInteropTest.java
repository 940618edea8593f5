package dev.wirespeed.lab.env;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * of the record's).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ShmringInteropTest {
    private static final int FRAMES = 200_000;
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
