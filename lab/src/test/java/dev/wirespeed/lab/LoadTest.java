package dev.wirespeed.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.frame.FrameReader;
import dev.wirespeed.testkit.SequenceVerifier;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The server under load: 64 concurrent clients, each verifying 100,000 frames, while one more client
 * reads slowly; no frame lost or repeated, the slow client stalls nobody, and the server's peak
 * resident memory stays bounded. The server is a real process (its RSS is its own); the clients are
 * threads of this JVM using the library's reader, as 65 JVMs would not fit the machine.
 *
 * <p>Why 100,000 frames: a stream of 10.8 MB is many times what a connection's socket buffers and the
 * server's 512 KiB hold, so the slow client's connection is held back by its full buffers for nearly all
 * of the run, and the 65 streams together (about 700 MB) are more than the RSS bound, so a server that
 * kept what it sent would fail it.
 *
 * <p>The slow client reads at most half its stream, then stops reading until the test has seen the others
 * finish: however long they take on a loaded machine, it cannot reach the end of its stream first, so the
 * others' ends came while the server was held back by it, which is what "stalls nobody" means.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "reads the server's peak RSS from /proc")
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class LoadTest {
    static final int CLIENTS = 64;
    static final long FRAMES = 100_000;
    /** A client's whole stream: frames of 108 bytes, a header of 8 and a body of 100. */
    static final long STREAM_BYTES = FRAMES * 108;
    /** A bound far above what 65 connections need (a 512 KiB buffer each) and far below what a leak reaches. */
    static final long MAX_SERVER_RSS_KB = 512 * 1024;

    private final List<Process> started = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void stopProcesses() {
        started.forEach(Process::destroyForcibly);
    }

    @ParameterizedTest
    @CsvSource({"tcp, virtual", "unix, virtual", "tcp, platform"})
    void sixtyFourClientsEachVerifyAStreamWhileASlowOneStallsNobody(String transport, String threads)
            throws Exception {
        List<String> args = new ArrayList<>(List.of("server", "--transport", transport, "--count", String.valueOf(FRAMES),
                "--threads", threads));
        Path socket = dir.resolve("load.sock");
        args.addAll(transport.equals("tcp") ? List.of("--port", "0") : List.of("--path", socket.toString()));
        Process server = Processes.command(args.toArray(String[]::new)).start();
        started.add(server);
        SocketAddress address;
        if (transport.equals("tcp")) {
            address = new InetSocketAddress("127.0.0.1", Processes.listeningPort(server));
        } else {
            BufferedReader err = new BufferedReader(new InputStreamReader(server.getErrorStream(), StandardCharsets.UTF_8));
            assertEquals("listening on " + socket, err.readLine());
            address = UnixDomainSocketAddress.of(socket);
        }
        CountDownLatch stop = new CountDownLatch(1);
        try (ExecutorService pool = Executors.newThreadPerTaskExecutor(Thread.ofPlatform().factory())) {
            try {
                CompletableFuture<Long> slow = CompletableFuture.supplyAsync(() -> readSlowly(address, stop), pool);
                long start = System.nanoTime();
                List<CompletableFuture<Long>> clients = new ArrayList<>();
                for (int i = 0; i < CLIENTS; i++) {
                    clients.add(CompletableFuture.supplyAsync(() -> readAll(address), pool));
                }
                for (CompletableFuture<Long> client : clients) {
                    assertEquals(FRAMES, client.get(5, TimeUnit.MINUTES), "every frame, once, in order");
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                assertFalse(slow.isDone(), "the slow client, half its stream at most read, was still connected when "
                        + "the 64 others had finished: " + (slow.isDone() ? slow.join() + " bytes read" : ""));
                long peakKb = peakRssKb(server.pid());
                System.out.printf(Locale.ROOT, "LoadTest %s, %s threads: %d clients x %,d frames verified in %.1f s "
                        + "(%.0f MB/s in all); server peak RSS %,d KiB%n", transport, threads, CLIENTS, FRAMES, seconds,
                        CLIENTS * STREAM_BYTES / seconds / 1e6, peakKb);
                assertTrue(peakKb < MAX_SERVER_RSS_KB, "server peak RSS " + peakKb + " KiB");
                stop.countDown();
                long slowBytes = slow.get(1, TimeUnit.MINUTES);
                assertTrue(slowBytes > 0 && slowBytes <= STREAM_BYTES / 2, "the slow client read " + slowBytes
                        + " bytes of " + STREAM_BYTES + ", and no more than half");
            } finally {
                stop.countDown(); // a failed check above does not leave the slow client waiting for the pool's close
            }
        }
    }

    /** Reads and verifies the whole stream; returns the frames read. */
    private static long readAll(SocketAddress address) {
        try (SocketChannel channel = open(address)) {
            SequenceVerifier verifier = new SequenceVerifier();
            FrameHandler verify = verifier::verify;
            long frames = FrameReader.builder(channel).bufferCapacity(64 * 1024).build().readFrames(verify);
            assertEquals(frames, verifier.framesVerified());
            return frames;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Reads 4 KiB at most every 10 ms (13 s or more for half the stream) until it has read half its stream,
     * then reads no more until told to stop (5 minutes at the most); returns the bytes read, fewer if told
     * sooner or if the stream ended before half, or -1 on a failure.
     */
    private static long readSlowly(SocketAddress address, CountDownLatch stop) {
        long half = STREAM_BYTES / 2;
        try (SocketChannel channel = open(address)) {
            ByteBuffer buffer = ByteBuffer.allocate(4096);
            long bytes = 0;
            while (bytes < half) {
                int n = channel.read(buffer.clear().limit((int) Math.min(buffer.capacity(), half - bytes)));
                if (n < 0) {
                    return bytes; // the end of a stream it was never to reach: the test says so
                }
                bytes += n;
                if (stop.await(10, TimeUnit.MILLISECONDS)) { // the pace, and an early stop
                    return bytes;
                }
            }
            stop.await(5, TimeUnit.MINUTES); // held: the rest of its stream waits in the server
            return bytes;
        } catch (IOException | InterruptedException e) {
            return -1;
        }
    }

    private static SocketChannel open(SocketAddress address) throws IOException {
        if (address instanceof UnixDomainSocketAddress) {
            SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            channel.connect(address);
            return channel;
        }
        return SocketChannel.open(address);
    }

    /** {@code VmHWM} of {@code /proc/PID/status}: the peak resident set, in KiB. */
    static long peakRssKb(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmHWM:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new IOException("no VmHWM in /proc/" + pid + "/status");
    }
}
