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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ring-write} and {@code ring-read}, the two ends of a shared ring by hand: the sequence stream
 * through the ring, verified, ended by the writer's close; a reader sleeping on the futex as well as one
 * that spins; two writers' streams into one many-to-one ring of each peer, each checked apart to its end, and
 * two writers that claim one number caught; refusals that name the value.
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

    /** {@return the reader's run}, once two many-to-one writers numbered {@code numbers} wrote 30,000 frames each */
    private Run manyToOne(String impl, int... numbers) throws Exception {
        Path ring = dir.resolve("many-" + impl);
        CompletableFuture<Run> reader = start("ring-read", "--layout", "many-to-one", "--impl", impl, "--path",
                ring.toString(), "--capacity", "65536", "--writers", "2", "--messages", "10000", "--verify",
                "--sleep", "spin");
        List<CompletableFuture<Run>> writers = new ArrayList<>();
        for (int w : numbers) { // each waits for the reader's ring
            writers.add(start("ring-write", "--layout", "many-to-one", "--impl", impl, "--path", ring.toString(),
                    "--writer", String.valueOf(w), "--count", "30000", "--size", "8-200", "--wake", "none"));
        }
        Run read = reader.get(50, TimeUnit.SECONDS);
        for (int i = 0; i < writers.size(); i++) {
            Run wrote = writers.get(i).get(40, TimeUnit.SECONDS);
            assertEquals(ExitCode.OK, wrote.code(), wrote.err());
            assertTrue(wrote.err().startsWith("writer " + numbers[i] + " on " + ring), wrote.err());
        }
        return read;
    }

    private void twoWritersThroughOneRing(String impl) throws Exception {
        Run read = manyToOne(impl, 0, 1);
        assertEquals(ExitCode.OK, read.code(), read.err());
        assertTrue(read.out().contains("every frame verified"), read.out());
    }

    @Test
    void twoWritersStreamsGoThroughOneManyToOneRingEachCheckedApartToItsEnd() throws Exception {
        twoWritersThroughOneRing("wirespeed");
    }

    @Test
    void twoWritersStreamsGoThroughAgronasManyToOneRingBufferEachCheckedApart() throws Exception {
        twoWritersThroughOneRing("agrona");
    }

    @Test
    void twoWritersStreamsGoThroughAeronsConcurrentPublicationsEachCheckedApart() throws Exception {
        twoWritersThroughOneRing("aeron");
    }

    @Test
    void twoWritersThatClaimOneNumberFailTheReadersCheckNamingTheWriter() throws Exception {
        Run read = manyToOne("wirespeed", 0, 0);
        assertEquals(ExitCode.VERIFY_FAILED, read.code(), read.out());
        assertTrue(read.err().contains("verification failed: writer 0's frame "), read.err());
    }

    @Test
    void aManyToOneWriterRefusesWhatTheReaderDecidesAndAOneToOneWriterANumber() throws Exception {
        Run capacity = start("ring-write", "--layout", "many-to-one", "--path", dir.resolve("c").toString(),
                "--capacity", "4096").get(20, TimeUnit.SECONDS);
        assertEquals(ExitCode.USAGE, capacity.code());
        assertEquals("wirespeed ring-write: --layout many-to-one takes --writer=0 >= 0, bodies of at least 8 bytes "
                + "(the frame's index), not --size 100-100, and no --capacity, --replace (the reader makes the ring) "
                + "nor --idle-ms", capacity.err().strip());
        Run number = start("ring-write", "--path", dir.resolve("n").toString(), "--writer", "1")
                .get(20, TimeUnit.SECONDS);
        assertEquals(ExitCode.USAGE, number.code());
        assertEquals("wirespeed ring-write: --writer=1 is for --layout many-to-one", number.err().strip());
        Run writers = start("ring-read", "--path", dir.resolve("w").toString(), "--writers", "2")
                .get(20, TimeUnit.SECONDS);
        assertEquals(ExitCode.USAGE, writers.code());
        assertEquals("wirespeed ring-read: --writers=2 must be >= 1, and it, --capacity and --replace are for "
                + "--layout many-to-one, which takes no --wakes; --layout one-to-one", writers.err().strip());
        Run capacity1m = start("ring-read", "--path", dir.resolve("m").toString(), "--capacity", "1048576")
                .get(20, TimeUnit.SECONDS);
        assertEquals(ExitCode.USAGE, capacity1m.code());
        assertEquals("wirespeed ring-read: --writers=1 must be >= 1, and it, --capacity and --replace are for "
                + "--layout many-to-one, which takes no --wakes; --layout one-to-one", capacity1m.err().strip());
    }
}
