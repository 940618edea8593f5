package dev.wirespeed.lab.shm;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Aeron's side of a link whose owner, and so the media driver, goes first: its client closes and its writer
 * says so, and the JVM runs on (Aeron's default answer to a driver that is gone is to end the JVM, the other
 * side's and a test's with it).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AeronLinkTest {
    private Path dir;

    @BeforeEach
    void directory() throws IOException {
        dir = RingCommands.directory("wirespeed-aeron-link");
    }

    @AfterEach
    void remove() throws IOException {
        RingCommands.delete(dir);
    }

    @Test
    void aWriterWhoseDriverClosedFirstRefusesItsNextFrameAndTheJvmRunsOn() throws Exception {
        Path base = dir.resolve("gone");
        ShmLink owner = ShmImpl.AERON.open(base, true, 0, Sleep.SPIN, Layout.MANY_TO_ONE);
        try (ShmLink other = ShmImpl.AERON.open(base, false, 0, Sleep.SPIN, Layout.MANY_TO_ONE)) {
            Outbound out = other.outbound("");
            owner.inbound("");
            ByteBuffer body = ByteBuffer.allocate(100);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!out.offer(0, body.clear())) { // until the subscription is there
                assertTrue(System.nanoTime() - deadline < 0, "no frame taken in 10 s");
                Thread.onSpinWait();
            }
            owner.close();
            IllegalStateException refused = assertThrows(IllegalStateException.class, () -> {
                while (true) { // until the client finds its driver gone
                    out.offer(0, body.clear());
                    Thread.sleep(1);
                }
            });
            assertTrue(refused.getMessage().contains("refused a frame"), refused.getMessage());
        }
    }
}
