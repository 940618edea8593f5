package dev.wirespeed.linux;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.frame.FrameReader;
import dev.wirespeed.frame.FrameWriter;
import dev.wirespeed.io.IdleStrategy;
import dev.wirespeed.linux.internal.sys.FdCalls;
import dev.wirespeed.linux.internal.sys.Flags;
import dev.wirespeed.linux.internal.sys.LibC;
import dev.wirespeed.linux.internal.sys.Sys;
import dev.wirespeed.testing.Seed;
import dev.wirespeed.testing.SteadyState;
import dev.wirespeed.testkit.SequenceStream;
import dev.wirespeed.testkit.SequenceVerifier;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link NativePipe}: reads, writes, the end of stream, non-blocking mode and what close puts back. */
@EnabledOnOs(value = OS.LINUX, disabledReason = "the native path is Linux-only")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NativePipeTest {
    @RegisterExtension
    static final Seed SEED = Seed.fromPropertyOrNew();
    private static final int F_DUPFD_CLOEXEC = 1030;

    @Test
    void bytesWrittenAtOneEndAreReadAtTheOtherThroughHeapAndDirectBuffersThenTheEnd() throws IOException {
        byte[] sent = new byte[3000];
        new SplittableRandom(SEED.value()).nextBytes(sent);
        NativePipe.Ends pipe = NativePipe.open();
        try (NativePipe source = pipe.source()) {
            try (NativePipe sink = pipe.sink()) {
                ByteBuffer heap = ByteBuffer.wrap(sent, 0, 1000);
                assertEquals(1000, sink.write(heap));
                ByteBuffer direct = ByteBuffer.allocateDirect(2000).put(sent, 1000, 2000).flip();
                assertEquals(2000, sink.write(direct));
                assertEquals(0, sink.write(ByteBuffer.allocate(0)));
            }
            ByteBuffer received = ByteBuffer.allocate(sent.length);
            ByteBuffer directIn = ByteBuffer.allocateDirect(700);
            while (received.hasRemaining()) {
                if (received.position() % 2 == 0) {
                    int n = source.read(directIn.clear().limit(Math.min(700, received.remaining())));
                    assertTrue(n > 0, "read " + n);
                    received.put(directIn.flip());
                } else {
                    assertTrue(source.read(received) > 0);
                }
            }
            assertArrayEquals(sent, received.array());
            assertEquals(-1, source.read(ByteBuffer.allocate(1)), "every writer closed: the end");
            assertEquals(-1, source.read(ByteBuffer.allocateDirect(1)), "the end stays the end");
        }
    }

    @Test
    void aNonBlockingReadOfAnEmptyPipeReturnsZeroAndAFullPipeTakesNothing() throws IOException {
        NativePipe.Ends pipe = NativePipe.open();
        try (NativePipe source = pipe.source(); NativePipe sink = pipe.sink()) {
            assertTrue(source.isBlocking());
            assertEquals(0, source.configureBlocking(false).read(ByteBuffer.allocateDirect(16)));
            assertFalse(source.isBlocking());
            sink.configureBlocking(false);
            ByteBuffer big = ByteBuffer.allocateDirect(1 << 20);
            long taken = 0;
            int n;
            while ((n = sink.write(big)) > 0) {
                taken += n;
            }
            assertEquals(0, n);
            assertEquals(Pipes.size(sink.fd()), taken, "a full pipe holds its capacity");
        }
    }

    @Test
    void closePutsBackTheBlockingModeTheSharedDescriptionHadAndClosesTheDescriptor() throws IOException {
        NativePipe.Ends pipe = NativePipe.open();
        pipe.sink().close();
        try (NativePipe source = pipe.source()) {
            // A second descriptor for the same open file description, as a shell's stdin is shared.
            int dup = Sys.check(Sys.fcntl(source.fd(), F_DUPFD_CLOEXEC, 0), "fcntl", "F_DUPFD_CLOEXEC");
            NativePipe shared = new NativePipe(dup, true, false, "dup");
            shared.configureBlocking(false);
            assertTrue((Sys.check(Sys.fcntl(source.fd(), Flags.F_GETFL, 0), "fcntl", "F_GETFL")
                    & Flags.O_NONBLOCK) != 0, "the mode is the description's, seen through both descriptors");
            shared.close();
            assertTrue((Sys.check(Sys.fcntl(source.fd(), Flags.F_GETFL, 0), "fcntl", "F_GETFL")
                    & Flags.O_NONBLOCK) == 0, "blocking again after close");
            assertThrows(ClosedChannelException.class, () -> shared.read(ByteBuffer.allocateDirect(1)));
            shared.close(); // twice does nothing
            assertEquals(-9, FdCalls.read(LibC.captureSegment(java.lang.foreign.Arena.ofAuto()), dup, 0, 0),
                    "the duplicate was closed: EBADF");
        }
    }

    /**
     * A shell holds a second descriptor of the pipe that is the child JVM's standard input, so it can
     * read the shared description's flags after the child has gone: set while the child runs, and
     * back to blocking once SIGTERM has ended it with the channel still open.
     */
    @Test
    void aJvmEndedBySigtermPutsBackTheBlockingModeOfTheStdinItInherited() throws Exception {
        String script = String.join("\n",
                "exec 3<&0",
                "\"$1\" --enable-native-access=ALL-UNNAMED -cp \"$2\" dev.wirespeed.linux.NonBlockingStdinChild <&3 >/dev/null &",
                "child=$!",
                "flags() { sed -n 's/^flags:[[:space:]]*//p' /proc/$$/fdinfo/3; }",
                "i=0",
                "while [ $i -lt 600 ] && [ $(( 0$(flags) & 2048 )) -eq 0 ]; do sleep 0.05; i=$((i + 1)); done",
                "echo \"during $(flags)\"",
                "kill -TERM $child",
                "wait $child",
                "echo \"exit $?\"",
                "echo \"after $(flags)\"");
        String javaBin = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        Process shell = new ProcessBuilder("sh", "-c", script, "sh", javaBin, System.getProperty("java.class.path"))
                .redirectErrorStream(true).start();
        // The test keeps the pipe's write end open, so the child's stdin never ends on its own.
        String out = new String(shell.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(shell.waitFor(60, TimeUnit.SECONDS), out);
        shell.getOutputStream().close();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                "during (0[0-7]+)\nexit (\\d+)\nafter (0[0-7]+)\n").matcher(out);
        assertTrue(m.find(), out);
        assertTrue((Integer.parseInt(m.group(1), 8) & Flags.O_NONBLOCK) != 0, "the child switched: " + out);
        assertEquals("143", m.group(2), "SIGTERM ended the child: " + out);
        assertEquals(0, Integer.parseInt(m.group(3), 8) & Flags.O_NONBLOCK, "blocking again: " + out);
    }

    @ParameterizedTest(name = "blocking={0}")
    @ValueSource(booleans = {true, false})
    void writingWhereNoReaderIsLeftIsEpipeNamingTheDescriptorAndWrongDirectionsAreRefused(boolean blocking)
            throws IOException {
        NativePipe.Ends pipe = NativePipe.open();
        pipe.source().close();
        try (NativePipe sink = pipe.sink().configureBlocking(blocking)) {
            NativeIoException e = assertThrows(NativeIoException.class, () -> sink.write(ByteBuffer.allocateDirect(8)));
            assertEquals(32, e.errno());
            assertTrue(e.getMessage().startsWith("write failed: errno=32 (Broken pipe) fd=" + sink.fd()
                    + " (pipe, write end)"), e.getMessage());
            assertThrows(NonReadableChannelException.class, () -> sink.read(ByteBuffer.allocateDirect(8)));
        }
        NativePipe.Ends other = NativePipe.open();
        other.sink().close();
        try (NativePipe source = other.source()) {
            assertThrows(NonWritableChannelException.class, () -> source.write(ByteBuffer.allocateDirect(8)));
        }
    }

    /** A thread writing sequence frames, and its outcome. */
    private record Writer(Thread thread, CompletableFuture<Void> done) {
    }

    /** Writes {@code frames} sequence frames into a non-blocking sink, from a thread of its own. */
    private static Writer writeFrames(NativePipe sink, long frames, int size, IdleStrategy idle) {
        Thread[] thread = new Thread[1];
        CompletableFuture<Void> done = CompletableFuture.runAsync(() -> {
            try (NativePipe end = sink.configureBlocking(false);
                    FrameWriter writer = FrameWriter.builder(end).bufferCapacity(8192).idleStrategy(idle).build()) {
                byte[] pattern = SequenceStream.pattern(size);
                for (long frame = 0; frame < frames; frame++) {
                    writer.writeFrame(SequenceStream.type(frame), pattern, SequenceStream.patternOffset(frame), size);
                }
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        }, r -> thread[0] = Thread.ofPlatform().name("writer").daemon().start(r));
        return new Writer(thread[0], done);
    }

    @Test
    void framesCrossANonBlockingPipeWithEveryIdleStrategy() throws Exception {
        int frames = 50_000;
        for (IdleStrategy idle : new IdleStrategy[] {IdleStrategy.busySpin(), IdleStrategy.defaultStrategy(),
                IdleStrategy.yielding(), IdleStrategy.backoff(10, 10, 1_000, 100_000)}) {
            NativePipe.Ends pipe = NativePipe.open();
            CompletableFuture<Void> writing = writeFrames(pipe.sink(), frames, 100, idle).done();
            try (NativePipe source = pipe.source().configureBlocking(false)) {
                FrameReader reader = FrameReader.builder(source).idleStrategy(idle).build();
                SequenceVerifier verifier = new SequenceVerifier();
                FrameHandler verify = verifier::verify;
                while (reader.readFrame(verify)) {
                    // every frame verified
                }
                writing.get(30, TimeUnit.SECONDS);
                assertEquals(frames, verifier.framesVerified(), idle.toString());
            }
        }
    }

    @Test
    void readingAndWritingANonBlockingPipeAllocateNothingPerFrameInTheSteadyState() throws Exception {
        NativeFeatures.assumeCallsAllocateNothing();
        // The read path below the reader runs once per refill or empty poll, about a hundred times less often
        // than a frame is read, so C2 compiles it after hundreds of thousands of frames, not the tens of
        // thousands that compile the per-frame path. Hence the warm-up of three million frames.
        int warm = 3_000_000;
        // The writer writes more than the check reads: past the last window it still has frames to write and
        // waits for room in a full pipe, so it is alive to be measured. It runs at most a pipe and a buffer
        // (under 1,000 frames) ahead of the reader, so each window holds about as many writes as reads.
        long frames = SteadyState.maxOperations(warm) + 10_000;
        NativePipe.Ends pipe = NativePipe.open();
        Writer writer = writeFrames(pipe.sink(), frames, 100, IdleStrategy.defaultStrategy());
        try (NativePipe source = pipe.source().configureBlocking(false)) {
            FrameReader reader = FrameReader.builder(source).build();
            SequenceVerifier verifier = new SequenceVerifier();
            FrameHandler verify = verifier::verify;
            long[] read = {0};
            SteadyState.assertAllocatesNothingPerOperation("frames read, and written by the other thread",
                    List.of(Thread.currentThread(), writer.thread()), warm, i -> {
                        if (!reader.readFrame(verify)) {
                            throw new AssertionError("end of stream at frame " + i);
                        }
                        read[0]++;
                    });
            assertEquals(read[0], verifier.framesVerified(), "a frame per operation");
            while (reader.readFrame(verify)) {
                // the rest, to the end of stream
            }
            writer.done().get(30, TimeUnit.SECONDS);
            assertEquals(frames, verifier.framesVerified());
        }
    }
}
