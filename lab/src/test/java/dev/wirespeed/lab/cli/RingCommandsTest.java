package dev.wirespeed.lab.cli;

import static dev.wirespeed.lab.shm.RingCommands.start;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.testing.Environment;
import dev.wirespeed.lab.shm.RingCommands;
import dev.wirespeed.lab.shm.RingCommands.Run;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ring-write} and {@code ring-read}, the two ends of a shared ring by hand: the sequence stream
 * through the ring, verified, ended by the writer's close; a reader sleeping on the futex as well as one
 * that spins; refusals that name the value.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingCommandsTest {
    private Path dir;

    @BeforeEach
    void directory() throws IOException {
        Environment.assume(Environment.Feature.NATIVE, dev.wirespeed.linux.NativeSocket.isSupported(),
                "the native module's system calls (Linux, 64-bit): the futex");
        dir = RingCommands.directory("wirespeed-ring-commands");
    }

    @AfterEach
    void remove() throws IOException {
        RingCommands.delete(dir);
    }

    private void throughTheRing(String wake, String sleep) throws Exception {
        Path ring = dir.resolve("ring-" + wake + "-" + sleep);
        CompletableFuture<Run> writer = start("ring-write", "--path", ring.toString(), "--count", "200000",
                "--capacity", "65536", "--size", "0-300", "--wake", wake);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!Files.exists(ring)) { // linked to its name once whole
            assertTrue(System.nanoTime() - deadline < 0, "no ring at " + ring + " after 20 s: " + writer.getNow(null));
            Thread.sleep(1);
        }
        Run reader = start("ring-read", "--path", ring.toString(), "--verify", "--messages", "50000", "--sleep", sleep)
                .get(40, TimeUnit.SECONDS);
        assertEquals(ExitCode.OK, reader.code(), reader.err());
        assertTrue(reader.out().contains("Total: 200000 msg;") && reader.out().contains("4 rounds; every frame "
                + "verified"), reader.out());
        Run wrote = writer.get(20, TimeUnit.SECONDS);
        assertEquals(ExitCode.OK, wrote.code(), wrote.err());
        assertEquals("ring at " + ring, wrote.err().strip());
    }

    @Test
    void theSequenceStreamGoesThroughTheRingVerifiedToTheWritersCloseWithAReaderThatSleeps() throws Exception {
        throughTheRing("futex", "futex");
    }

    @Test
    void theSequenceStreamGoesThroughTheRingVerifiedWithAReaderThatSpins() throws Exception {
        throughTheRing("none", "spin");
    }

    @Test
    void aWriterRefusesACapacityThatIsNoPowerOfTwoAndARingFileAlreadyThere() throws Exception {
        Run odd = start("ring-write", "--path", dir.resolve("odd").toString(), "--capacity", "5000")
                .get(20, TimeUnit.SECONDS);
        assertEquals(ExitCode.USAGE, odd.code());
        assertEquals("wirespeed ring-write: capacity=5000: must be a power of two from 4096 to 1073741824",
                odd.err().strip());
        Path there = Files.createFile(dir.resolve("there"));
        Run taken = start("ring-write", "--path", there.toString(), "--count", "1").get(20, TimeUnit.SECONDS);
        assertEquals(ExitCode.IO_FAILURE, taken.code());
        assertTrue(taken.err().contains("FileAlreadyExistsException") && taken.err().contains(there.toString()),
                taken.err());
    }
}
