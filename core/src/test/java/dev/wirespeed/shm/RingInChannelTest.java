package dev.wirespeed.shm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.NonWritableChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Both kinds of ring made in a file the caller opened, and opened from another channel on it: the ring
 * outlives the channels and the file's name, and has no file of its own; a file that is not empty is
 * refused, and one opened from a channel is checked as one opened by its path, the messages naming the
 * channel's file.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingInChannelTest {
    private Path dir;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void makeDirectory() throws IOException {
        Path shm = Path.of("/dev/shm");
        dir = Files.createTempDirectory(Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(
                System.getProperty("java.io.tmpdir")), "wirespeed-channel-test");
    }

    @AfterEach
    void removeFiles() throws Exception {
        for (AutoCloseable c : open.reversed()) {
            c.close();
        }
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
        Files.delete(dir);
    }

    private FileChannel channel(Path file, StandardOpenOption... options) throws IOException {
        FileChannel c = FileChannel.open(file, options);
        open.add(c);
        return c;
    }

    private <T extends AutoCloseable> T kept(T ring) {
        open.add(ring);
        return ring;
    }

    @Test
    void aOneToOneRingMadeInAnEmptyFileIsOpenedFromAnotherChannelOnceTheFileHasNoName() throws IOException {
        Path file = dir.resolve("one");
        FileChannel making = channel(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        FileChannel opening = channel(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        SharedRing made = kept(SharedRing.create(making, 4096));
        making.close();
        Files.delete(file); // the ring's file now has no name, as a memory file has none
        assertEquals(SharedRing.HEADER_BYTES + 4096L, opening.size(), "the file grown to the header and capacity");
        SharedRing opened = kept(SharedRing.open(opening));
        opening.close();
        assertNull(made.file(), "a ring made in a channel has no file");
        assertNull(opened.file(), "nor one opened from a channel");
        assertEquals(4096, opened.capacity());
        assertEquals("SharedRing[the channel's file capacity=4096]", opened.toString());
        RingWriter writer = made.writer();
        RingReader reader = opened.reader();
        for (int i = 0; i < 100; i++) {
            assertTrue(writer.offer(i, ByteBuffer.wrap(body(i, i * 13 % 300))), "frame " + i);
            int seq = i;
            assertEquals(1, reader.read((type, body) -> {
                assertEquals(seq, type, "type of frame " + seq);
                assertArrayEquals(body(seq, seq * 13 % 300), bytes(body), "body of frame " + seq);
            }, 10), "frames read after frame " + i);
        }
        IllegalStateException twice = assertThrows(IllegalStateException.class, made::writer);
        assertEquals("the writer of the channel's file was taken already: one writer per ring", twice.getMessage());
    }

    @Test
    void aManyToOneRingMadeInAnEmptyFileIsOpenedFromAnotherChannelOnceTheFileHasNoName() throws IOException {
        Path file = dir.resolve("many");
        FileChannel making = channel(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        FileChannel opening = channel(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        ManyToOneRing made = kept(ManyToOneRing.create(making, 8192));
        making.close();
        Files.delete(file);
        assertEquals(ManyToOneRing.HEADER_BYTES + 8192L, opening.size(), "the file grown to the header and capacity");
        ManyToOneRing opened = kept(ManyToOneRing.open(opening));
        opening.close();
        assertNull(made.file());
        assertNull(opened.file());
        ManyToOneWriter first = made.writer();
        ManyToOneWriter second = opened.writer();
        ManyToOneReader reader = opened.reader();
        List<Integer> types = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            assertTrue((i % 2 == 0 ? first : second).offer(i, ByteBuffer.wrap(body(i, i * 13 % 300))), "frame " + i);
            int seq = i;
            assertEquals(1, reader.read((type, body) -> {
                types.add(type);
                assertArrayEquals(body(seq, seq * 13 % 300), bytes(body), "body of frame " + seq);
            }, 10), "frames read after frame " + i);
        }
        assertEquals(100, types.size());
        for (int i = 0; i < 100; i++) {
            assertEquals(i, types.get(i), "type of frame " + i);
        }
    }

    @Test
    void aFileThatIsNotEmptyIsRefusedNamingItsSize() throws IOException {
        Path file = dir.resolve("full");
        Files.write(file, new byte[10]);
        FileChannel c = channel(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        IOException one = assertThrows(IOException.class, () -> SharedRing.create(c, 4096));
        assertEquals("a ring is made in an empty file: the channel's file has 10 bytes", one.getMessage());
        IOException many = assertThrows(IOException.class, () -> ManyToOneRing.create(c, 4096));
        assertEquals("a ring is made in an empty file: the channel's file has 10 bytes", many.getMessage());
        assertEquals(10, c.size(), "the file left as it was");
        IllegalArgumentException capacity = assertThrows(IllegalArgumentException.class,
                () -> SharedRing.create(c, 5000));
        assertEquals("capacity=5000: must be a power of two from 4096 to 1073741824", capacity.getMessage());
    }

    @Test
    void aChannelThatCannotWriteIsRefused() throws IOException {
        Path file = dir.resolve("read-only");
        Files.createFile(file);
        FileChannel c = channel(file, StandardOpenOption.READ);
        assertThrows(NonWritableChannelException.class, () -> SharedRing.create(c, 4096));
        assertEquals(0, c.size(), "nothing made");
    }

    @Test
    void aRingOpenedFromAChannelIsCheckedAsOneOpenedByItsPath() throws IOException {
        Path one = dir.resolve("one");
        kept(SharedRing.create(one, 4096));
        Path many = dir.resolve("many");
        kept(ManyToOneRing.create(many, 4096));
        Path zeros = dir.resolve("zeros");
        Files.write(zeros, new byte[16384]);
        Path small = dir.resolve("small");
        Files.write(small, new byte[100]);
        IOException asOne = assertThrows(IOException.class,
                () -> SharedRing.open(channel(many, StandardOpenOption.READ, StandardOpenOption.WRITE)));
        assertEquals("the channel's file holds a many-to-one shared ring (many writers, one reader), layout 2, not a "
                + "one-to-one shared ring (one writer, one reader), layout 1: open it with ManyToOneRing.open",
                asOne.getMessage());
        IOException asMany = assertThrows(IOException.class,
                () -> ManyToOneRing.open(channel(one, StandardOpenOption.READ, StandardOpenOption.WRITE)));
        assertEquals("the channel's file holds a one-to-one shared ring (one writer, one reader), layout 1, not a "
                + "many-to-one shared ring (many writers, one reader), layout 2: open it with SharedRing.open",
                asMany.getMessage());
        IOException magic = assertThrows(IOException.class,
                () -> SharedRing.open(channel(zeros, StandardOpenOption.READ, StandardOpenOption.WRITE)));
        assertEquals("not a shared ring of layout 1: the channel's file begins with 0x0, not 0x1474e49525357",
                magic.getMessage());
        IOException size = assertThrows(IOException.class,
                () -> ManyToOneRing.open(channel(small, StandardOpenOption.READ, StandardOpenOption.WRITE)));
        assertEquals("not a shared ring: the channel's file has 100 bytes, less than a header of 4096 and the least "
                + "capacity 4096", size.getMessage());
    }

    private static byte[] body(int i, int length) {
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
}
