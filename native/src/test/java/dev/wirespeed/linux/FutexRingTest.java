package dev.wirespeed.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.linux.internal.sys.SyscallNumbers;
import dev.wirespeed.shm.RingReader;
import dev.wirespeed.shm.RingWriter;
import dev.wirespeed.shm.SharedRing;
import dev.wirespeed.testing.Seed;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A shared ring's reader asleep on the futex of its header's word: in the kernel, using no CPU, until
 * the writer's first frame wakes it; and no frame left unseen when the writer publishes just as the
 * reader falls asleep, over thousands of such moments.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "futex is Linux's")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FutexRingTest {
    @RegisterExtension
    static final Seed SEED = Seed.fromPropertyOrNew();
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private Path dir;
    private SharedRing ring;

    @BeforeEach
    void makeRing() throws IOException {
        NativeFeatures.assumeNative();
        Path shm = Path.of("/dev/shm");
        dir = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")),
                "wirespeed-futex-test");
        ring = SharedRing.create(dir.resolve("ring"), 64 * 1024);
    }

    @AfterEach
    void removeRing() throws IOException {
        if (ring != null) {
            ring.close();
            Files.deleteIfExists(ring.file());
        }
        if (dir != null) {
            Files.deleteIfExists(dir);
        }
    }

    @Test
    void aReaderAsleepOnTheFutexUsesNoCpuAndTheWritersFirstFrameWakesIt() throws Exception {
        RingReader reader = ring.reader();
        AtomicInteger got = new AtomicInteger(-1);
        Actor sleeper = new Actor("ring-reader", () -> {
            int n = reader.take((type, body) -> got.set(type), 10, Futex.create(), Duration.ofSeconds(30));
            assertEquals(1, n, "frames taken");
        });
        sleeper.begin();
        sleeper.awaitAsleepIn(SyscallNumbers.FUTEX, "futex");
        long wall = System.nanoTime();
        long cpu = THREADS.getThreadCpuTime(sleeper.threadId());
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200)); // a window to read its CPU time over
        long cpuMillis = TimeUnit.NANOSECONDS.toMillis(THREADS.getThreadCpuTime(sleeper.threadId()) - cpu);
        long wallMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - wall);
        assertTrue(cpuMillis <= wallMillis / 20, "the sleeping reader used " + cpuMillis + " ms of CPU in "
                + wallMillis + " ms");
        RingWriter writer = ring.writer(Futex.create());
        assertTrue(writer.offer(42, ByteBuffer.wrap(new byte[] {1, 2, 3})));
        assertNull(sleeper.outcome(), "the reader's outcome");
        assertEquals(42, got.get(), "the frame that woke it");
    }

    /**
     * A writer that publishes in bursts with pauses of up to 50 microseconds, so that the reader falls
     * asleep between most of them, and so often just as a frame comes: every frame arrives, in order,
     * within 20 s in all; a frame left unseen by a sleeping reader would stall it for the rest of its
     * 30-second sleep.
     */
    @Test
    void noFrameIsLeftUnseenWhenItComesAsTheReaderFallsAsleep() throws Exception {
        RingReader reader = ring.reader();
        RingWriter writer = ring.writer(Futex.create());
        int frames = 20_000;
        long seed = SEED.value();
        Actor writing = new Actor("ring-writer", () -> {
            SplittableRandom random = new SplittableRandom(seed);
            ByteBuffer body = ByteBuffer.allocate(8);
            for (int i = 0; i < frames; i++) {
                body.clear().putLong(0, i);
                while (!writer.offer(i, body)) {
                    Thread.onSpinWait();
                }
                if (random.nextInt(4) == 0) {
                    LockSupport.parkNanos(random.nextInt(50_000));
                }
            }
        });
        writing.begin();
        Futex sleep = Futex.create();
        long[] next = {0};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (next[0] < frames) {
            assertTrue(System.nanoTime() - deadline < 0, next[0] + " of " + frames + " frames after 20 s");
            reader.take((type, body) -> {
                assertEquals((int) next[0], type, "frame " + next[0]);
                assertEquals(next[0], body.getLong(body.position()));
                next[0]++;
            }, 64, sleep, Duration.ofSeconds(30));
        }
        assertNull(writing.outcome(), "the writer's outcome");
        assertEquals(writer.position(), reader.position());
    }
}
