package dev.wirespeed.linux;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.linux.internal.net.FdPassing;
import dev.wirespeed.linux.internal.net.SocketFd;
import dev.wirespeed.linux.internal.sys.Errno;
import dev.wirespeed.shm.ManyToOneReader;
import dev.wirespeed.shm.ManyToOneRing;
import dev.wirespeed.shm.RingReader;
import dev.wirespeed.shm.RingSleep;
import dev.wirespeed.shm.SharedRing;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A shared ring in a memory file with no name, handed over a Unix socket: a child process that receives
 * it opens the ring and writes a numbered stream this process reads in order to its end, for both kinds
 * of ring; the seals hold against a peer that would shrink or grow the file, or add a seal; and what a
 * peer could send instead of one sealed memory file is refused, named, and every descriptor that came
 * with it closed.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "memfd_create and SCM_RIGHTS are Linux's")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MemoryFileRingTest {
    @TempDir
    Path dir;

    private NativeServerSocket server;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void listen() throws IOException {
        NativeFeatures.assumeNative();
        server = NativeServerSocket.bind(UnixDomainSocketAddress.of(dir.resolve("s")), 4);
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open.reversed()) {
            c.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private <T extends AutoCloseable> T kept(T c) {
        open.add(c);
        return c;
    }

    /**
     * {@return the server's next connection, accepted on a thread of its own}: not the common pool's, which
     * on a machine of two cores has one thread, kept by the child's output until the child ends
     */
    private CompletableFuture<NativeSocket> accepting() {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return server.accept();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, task -> Thread.ofPlatform().daemon().name("accept").start(task));
    }

    /** {@return a connection to the server, accepted, with its peer's end in {@code peer}} */
    private NativeSocket accepted(SocketFd[] peer) throws Exception {
        CompletableFuture<NativeSocket> accepting = accepting();
        peer[0] = kept(SocketFd.connect(server.localAddress()));
        return kept(accepting.get(20, TimeUnit.SECONDS));
    }

    private static MemoryFile sealedRingFile(MemoryFile file, String kind) throws IOException {
        if (kind.equals("one-to-one")) {
            SharedRing.create(file.channel(), 16 * 1024).close();
        } else {
            ManyToOneRing.create(file.channel(), 16 * 1024).close();
        }
        file.sealSize();
        return file;
    }

    @ParameterizedTest
    @ValueSource(strings = {"one-to-one", "many-to-one"})
    void aRingInAMemoryFileHandedToAChildProcessCarriesItsNumberedStreamInOrder(String kind) throws Exception {
        int frames = 30_000;
        MemoryFile file = kept(MemoryFile.create("wirespeed-test-" + kind));
        Reading reading;
        if (kind.equals("one-to-one")) {
            SharedRing ring = kept(SharedRing.create(file.channel(), 16 * 1024));
            RingReader reader = ring.reader();
            reading = (handler, timeout) -> reader.take(handler, 64, RingSleep.polling(), timeout);
        } else {
            ManyToOneRing ring = kept(ManyToOneRing.create(file.channel(), 16 * 1024));
            ManyToOneReader reader = ring.reader();
            reading = (handler, timeout) -> reader.take(handler, 64, RingSleep.polling(), timeout);
        }
        file.sealSize();
        Process child = child(kind, frames);
        CompletableFuture<String> output = output(child);
        CompletableFuture<NativeSocket> accepting = accepting();
        NativeSocket socket;
        try {
            socket = kept(accepting.get(30, TimeUnit.SECONDS));
        } catch (TimeoutException e) {
            server.close(); // releases the accept
            fail("the child did not connect within 30 s; it " + (child.isAlive() ? "runs" : "exited "
                    + child.exitValue() + ": " + output.get(10, TimeUnit.SECONDS)));
            return;
        }
        assertTrue(socket.sendMemoryFile(file));
        file.close(); // the file lives on in the mappings of this process's ring and, soon, the child's
        long[] next = {0};
        FrameHandler inOrder = (type, body) -> {
            int length = (int) (next[0] % 300);
            assertEquals((int) next[0], type, "type of frame " + next[0]);
            byte[] expected = new byte[length];
            for (int j = 0; j < length; j++) {
                expected[j] = (byte) (next[0] + j);
            }
            byte[] got = new byte[body.remaining()];
            body.duplicate().get(got);
            assertArrayEquals(expected, got, "body of frame " + next[0]);
            next[0]++;
        };
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
        while (next[0] < frames) {
            assertTrue(System.nanoTime() - deadline < 0, next[0] + " of " + frames + " frames read after 40 s");
            int n = reading.take(inOrder, Duration.ofSeconds(5));
            assertTrue(n >= 0, "the end after " + next[0] + " of " + frames + " frames");
            assertTrue(n > 0 || child.isAlive(), () -> "nothing for 5 s after " + next[0] + " frames from a child "
                    + "that exited " + child.exitValue() + ": " + output.getNow(""));
        }
        if (kind.equals("one-to-one")) {
            assertEquals(-1, reading.take(inOrder, Duration.ofSeconds(20)), "the end once the child closed its end");
        }
        assertEquals(frames, next[0], "every frame and no more");
        assertTrue(child.waitFor(20, TimeUnit.SECONDS), "the child still runs 20 s after its last frame");
        String said = output.get(10, TimeUnit.SECONDS);
        assertEquals(0, child.exitValue(), said);
        assertTrue(said.contains("growing the received file failed as it should"), said);
    }

    /** Either kind's reader's take. */
    private interface Reading {
        int take(FrameHandler handler, Duration timeout) throws IOException;
    }

    @Test
    void theSealsHoldAgainstAPeerThatWouldShrinkOrGrowTheFileOrAddASeal() throws Exception {
        SocketFd[] peer = new SocketFd[1];
        NativeSocket receiving = accepted(peer);
        NativeSocket sending = kept(new NativeSocket(peer[0]));
        MemoryFile file = kept(MemoryFile.create("wirespeed-test-seals"));
        SharedRing ring = kept(SharedRing.create(file.channel(), 4096));
        assertFalse(file.isSizeSealed(), "not sealed before sealSize");
        file.sealSize();
        assertTrue(file.isSizeSealed());
        assertTrue(sending.sendMemoryFile(file));
        MemoryFile received = kept(receiving.receiveMemoryFile());
        assertTrue(received.isSizeSealed());
        long size = SharedRing.HEADER_BYTES + 4096L;
        assertEquals(size, received.size());
        IOException shrink = assertThrows(IOException.class, () -> received.channel().truncate(4096));
        assertEquals(Errno.strerror(Errno.EPERM), shrink.getMessage(), "ftruncate to 4096 bytes");
        IOException grow = assertThrows(IOException.class, () -> received.channel().write(ByteBuffer.allocate(1), size));
        assertEquals(Errno.strerror(Errno.EPERM), grow.getMessage(), "a write at the end, offset " + size);
        NativeIoException seal = assertThrows(NativeIoException.class, received::sealSize);
        assertEquals(Errno.EPERM, seal.errno(), seal.getMessage());
        assertEquals(size, received.size(), "the size as it was");
        assertEquals(size, file.size());
        SharedRing opened = kept(SharedRing.open(received.channel()));
        assertTrue(ring.writer().offer(5, ByteBuffer.wrap(new byte[] {1, 2})));
        int[] type = {0};
        assertEquals(1, opened.reader().read((t, body) -> type[0] = t, 10));
        assertEquals(5, type[0], "the frame written through the other mapping");
    }

    @Test
    void aMemoryFileWhoseSizeIsNotSealedIsNotSent() throws Exception {
        SocketFd[] peer = new SocketFd[1];
        accepted(peer);
        NativeSocket sending = kept(new NativeSocket(peer[0]));
        MemoryFile file = kept(MemoryFile.create("wirespeed-test-unsealed"));
        IllegalStateException unsealed = assertThrows(IllegalStateException.class, () -> sending.sendMemoryFile(file));
        assertEquals("a memory file is handed over with its size sealed, so that the peer may map it: " + file
                + " is not; call sealSize() first", unsealed.getMessage());
    }

    @Test
    void aTcpSocketCarriesNoMemoryFile() throws Exception {
        try (NativeServerSocket tcp = NativeServerSocket.bind(new InetSocketAddress("127.0.0.1", 0), 1);
                NativeSocket socket = NativeSocket.connect(tcp.localAddress());
                MemoryFile file = sealedRingFile(MemoryFile.create("wirespeed-test-tcp"), "one-to-one")) {
            // The kernel would send the byte and drop the descriptor: refused before.
            IOException send = assertThrows(IOException.class, () -> socket.sendMemoryFile(file));
            assertEquals("sendMemoryFile needs a Unix socket, which carries descriptors; fd=" + socket.fd()
                    + " remote=" + tcp.localAddress().toString().substring(1) + " is TCP", send.getMessage());
            IOException receive = assertThrows(IOException.class, socket::receiveMemoryFile);
            assertTrue(receive.getMessage().startsWith("receiveMemoryFile needs a Unix socket"), receive.getMessage());
        }
    }

    @Test
    void aByteWithNoDescriptorIsRefused() throws Exception {
        SocketFd[] peer = new SocketFd[1];
        NativeSocket receiving = accepted(peer);
        assertEquals(1, peer[0].write(ByteBuffer.wrap(new byte[] {0})));
        IOException none = assertThrows(IOException.class, receiving::receiveMemoryFile);
        assertEquals("a message with no descriptor: one byte came with 0 descriptors, not 1; fd=" + receiving.fd()
                + " remote=null", none.getMessage());
    }

    @Test
    void twoDescriptorsAreRefusedAndBothClosed() throws Exception {
        SocketFd[] peer = new SocketFd[1];
        NativeSocket receiving = accepted(peer);
        MemoryFile file = kept(sealedRingFile(MemoryFile.create("wirespeed-test-two"), "one-to-one"));
        int before = descriptorsOf("memfd:wirespeed-test-two");
        assertTrue(FdPassing.send(peer[0], file.fd(), file.fd()));
        IOException two = assertThrows(IOException.class, receiving::receiveMemoryFile);
        assertEquals("a message with 2 descriptors, not 1; all 2 were closed; fd=" + receiving.fd() + " remote=null",
                two.getMessage());
        assertEquals(before, descriptorsOf("memfd:wirespeed-test-two"), "descriptors of the file after the refusal");
    }

    @Test
    void moreDescriptorsThanTheControlBufferTakesAreRefusedAndThoseThatCameClosed() throws Exception {
        SocketFd[] peer = new SocketFd[1];
        NativeSocket receiving = accepted(peer);
        MemoryFile file = kept(sealedRingFile(MemoryFile.create("wirespeed-test-many"), "one-to-one"));
        int before = descriptorsOf("memfd:wirespeed-test-many");
        int[] fds = new int[FdPassing.MAX_RECEIVED + 1];
        java.util.Arrays.fill(fds, file.fd());
        assertTrue(FdPassing.send(peer[0], fds));
        IOException cut = assertThrows(IOException.class, receiving::receiveMemoryFile);
        assertEquals("a message whose control data was cut short (MSG_CTRUNC): more than 8 descriptors, or more "
                + "control data than they take; the 8 that came were closed; fd=" + receiving.fd() + " remote=null",
                cut.getMessage());
        assertEquals(before, descriptorsOf("memfd:wirespeed-test-many"), "descriptors of the file after the refusal");
    }

    @Test
    void aDescriptorOfSomethingElseThanAMemoryFileIsRefusedAndClosed() throws Exception {
        SocketFd[] peer = new SocketFd[1];
        NativeSocket receiving = accepted(peer);
        int before = descriptorsOf("socket:");
        assertTrue(FdPassing.send(peer[0], peer[0].fd())); // a socket: it takes no seals
        IOException socket = assertThrows(IOException.class, receiving::receiveMemoryFile);
        assertTrue(socket.getMessage().startsWith("the descriptor received is not a memory file: fcntl(F_GET_SEALS) "
                + "failed: errno=22 (" + Errno.strerror(Errno.EINVAL) + ") fd="), socket.getMessage());
        assertTrue(socket.getMessage().endsWith("; it was closed"), socket.getMessage());
        assertEquals(before, descriptorsOf("socket:"), "socket descriptors after the refusal");
    }

    @Test
    void aMemoryFileWhoseSizeIsNotSealedIsRefusedAndClosed() throws Exception {
        SocketFd[] peer = new SocketFd[1];
        NativeSocket receiving = accepted(peer);
        MemoryFile file = kept(MemoryFile.create("wirespeed-test-open"));
        SharedRing.create(file.channel(), 4096).close();
        int before = descriptorsOf("memfd:wirespeed-test-open");
        assertTrue(FdPassing.send(peer[0], file.fd()));
        IOException unsealed = assertThrows(IOException.class, receiving::receiveMemoryFile);
        assertTrue(unsealed.getMessage().startsWith("the memory file received is not sealed against shrinking and "
                + "growing: seals="), unsealed.getMessage());
        assertTrue(unsealed.getMessage().contains(", wanted F_SEAL_SHRINK|F_SEAL_GROW; fd="), unsealed.getMessage());
        assertEquals(before, descriptorsOf("memfd:wirespeed-test-open"), "descriptors of the file after the refusal");
    }

    @Test
    void aSealedMemoryFileThatHoldsNoRingIsRefusedByEitherKindsOpen() throws Exception {
        SocketFd[] peer = new SocketFd[1];
        NativeSocket receiving = accepted(peer);
        NativeSocket sending = kept(new NativeSocket(peer[0]));
        MemoryFile file = kept(MemoryFile.create("wirespeed-test-zeros"));
        file.channel().write(ByteBuffer.allocate(1), 16 * 1024 - 1); // 16 KiB of zeros
        file.sealSize();
        assertTrue(sending.sendMemoryFile(file));
        MemoryFile received = kept(receiving.receiveMemoryFile());
        IOException one = assertThrows(IOException.class, () -> SharedRing.open(received.channel()));
        assertEquals("not a shared ring of layout 1: the channel's file begins with 0x0, not 0x1474e49525357",
                one.getMessage());
        IOException many = assertThrows(IOException.class, () -> ManyToOneRing.open(received.channel()));
        assertEquals("not a shared ring of layout 2: the channel's file begins with 0x0, not 0x2474e49525357",
                many.getMessage());
    }

    @Test
    void thePeerClosingBeforeAMemoryFileIsTheEndOfStream() throws Exception {
        SocketFd[] peer = new SocketFd[1];
        NativeSocket receiving = accepted(peer);
        peer[0].close();
        EOFException end = assertThrows(EOFException.class, receiving::receiveMemoryFile);
        assertEquals("end of stream before a descriptor: the peer closed fd=" + receiving.fd() + " remote=null",
                end.getMessage());
    }

    @Test
    void aNonBlockingSocketWithNothingThereReceivesNull() throws Exception {
        SocketFd[] peer = new SocketFd[1];
        NativeSocket receiving = accepted(peer);
        receiving.configureBlocking(false);
        assertEquals(null, receiving.receiveMemoryFile(), "nothing sent yet");
        MemoryFile file = kept(sealedRingFile(MemoryFile.create("wirespeed-test-later"), "many-to-one"));
        assertTrue(new NativeSocket(peer[0]).sendMemoryFile(file));
        MemoryFile received = kept(receiving.receiveMemoryFile());
        assertNotNull(received);
        kept(ManyToOneRing.open(received.channel()));
    }

    @Test
    void aNameTooLongForTheKernelIsRefusedWithItsLength() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MemoryFile.create("n".repeat(250)));
        assertEquals("a memory file's name must be at most 249 bytes of UTF-8 with no NUL; name=\"" + "n".repeat(250)
                + "\" has 250 bytes", e.getMessage());
    }

    /** {@return how many of this process's descriptors are links whose target starts with {@code target}} */
    private static int descriptorsOf(String target) throws IOException {
        int count = 0;
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    if (Files.readSymbolicLink(fd).toString().startsWith(target)
                            || Files.readSymbolicLink(fd).toString().startsWith("/" + target)) {
                        count++;
                    }
                } catch (IOException gone) {
                    // the listing's own descriptor, closed since
                }
            }
        }
        return count;
    }

    private Process child(String kind, int frames) throws IOException {
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        List<String> command = new ArrayList<>(List.of(java));
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("--enable-native-access") || arg.startsWith("--add-modules")) {
                command.add(arg);
            }
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), MemoryFileRingChild.class.getName(),
                dir.resolve("s").toString(), kind, String.valueOf(frames)));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        child.getOutputStream().close();
        open.add(child::destroyForcibly);
        return child;
    }

    private static CompletableFuture<String> output(Process child) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, task -> Thread.ofPlatform().daemon().name("child-output").start(task));
    }
}
