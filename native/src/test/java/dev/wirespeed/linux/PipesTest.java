package dev.wirespeed.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

@EnabledOnOs(value = OS.LINUX, disabledReason = "F_SETPIPE_SZ is Linux-only")
class PipesTest {

    @Test
    void resizesAPipeAndReadsTheNewSizeBack() throws Exception {
        // A FIFO opened for reading and writing is a pipe whose descriptor this process holds.
        Path fifo = Path.of(System.getProperty("java.io.tmpdir"), "wirespeed-pipes-test-" + ProcessHandle.current().pid());
        Files.deleteIfExists(fifo);
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, mkfifo.waitFor());
        try (var channel = java.nio.channels.FileChannel.open(fifo, java.nio.file.StandardOpenOption.READ,
                java.nio.file.StandardOpenOption.WRITE)) {
            int fd = descriptorOf(fifo);
            assertEquals(65536, Pipes.size(fd));
            assertTrue(Pipes.resize(fd, 1 << 20) >= 1 << 20);
            assertEquals(1 << 20, Pipes.size(fd));
            assertTrue(channel.isOpen());
        } finally {
            Files.deleteIfExists(fifo);
        }
    }

    @Test
    void namesTheCallTheCommandAndTheErrnoForADescriptorThatIsNotAPipe(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("plain"), "x");
        try (var channel = java.nio.channels.FileChannel.open(file)) {
            int fd = descriptorOf(file);
            NativeIoException e = assertThrows(NativeIoException.class, () -> Pipes.size(fd));
            assertEquals("fcntl", e.call());
            assertEquals(9, e.errno());
            assertEquals("fcntl failed: errno=9 (Bad file descriptor) cmd=F_GETPIPE_SZ fd=" + fd + " arg=0", e.getMessage());
            assertTrue(channel.isOpen());
        }
    }

    /** The descriptor this process has open on {@code path}, found in /proc/self/fd (tests only). */
    private static int descriptorOf(Path path) throws Exception {
        Path real = path.toRealPath();
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).equals(real);
                } catch (Exception e) {
                    return false;
                }
            }).mapToInt(fd -> Integer.parseInt(fd.getFileName().toString())).max().orElseThrow();
        }
    }
}
