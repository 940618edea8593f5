package dev.wirespeed.lab.cli;

import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.server.SizeRange;
import dev.wirespeed.lab.shm.Outbound;
import dev.wirespeed.lab.shm.PingPong;
import dev.wirespeed.lab.shm.ShmImpl;
import dev.wirespeed.lab.shm.ShmLink;
import dev.wirespeed.lab.shm.Sleep;
import dev.wirespeed.testkit.SequenceStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code wirespeed ring-write}: the sequence stream into shared memory, for {@code ring-read}. */
@Command(name = "ring-write", mixinStandardHelpOptions = true,
        description = {"Makes a shared ring (a file under /dev/shm, memory, which another process maps) and writes "
                + "the sequence stream into it (frames 0, 1, 2, ...), waiting while the ring is full: the other end "
                + "of 'wirespeed ring-read'. Ends after --count frames, closing its end (the reader then reads to "
                + "the last frame and ends), or when the reader goes away. --impl agrona writes through Agrona's "
                + "OneToOneRingBuffer over the file instead, --impl aeron through Aeron's IPC, with a media driver "
                + "embedded in this process (its directory PATH-aeron).",
            "Prints 'ring at PATH' on standard error once the ring is made. docs/shared-ring.md has its layout."})
public final class RingWriteCommand extends DirectCommand {
    /** {@code --impl}. */
    public static final Opt<ShmImpl> IMPL = RingReadCommand.IMPL;

    /** {@code --path}. */
    public static final Opt<Path> PATH = Opt.ofPath("--path", Path.of("/dev/shm/wirespeed.ring"), "the ring's file, "
            + "made anew (default ${DEFAULT-VALUE})");

    /** {@code --replace}. */
    public static final Opt<Boolean> REPLACE = Opt.flag("--replace", "delete a file already at --path first (a ring "
            + "left by a writer that died)");

    /** {@code --capacity}. */
    public static final Opt<Integer> CAPACITY = Opt.ofInt("--capacity", 1 << 20, "bytes of frames the ring holds: a "
            + "power of two from 4096 to 1073741824 (default ${DEFAULT-VALUE}); Aeron's streams take its driver's "
            + "default");

    /** {@code --size}. */
    public static final Opt<SizeRange> SIZE = ServerCommand.SIZE;

    /** {@code --count}; absent: endless. */
    public static final Opt<Long> COUNT = Opt.ofLong("--count", null, "frames to write (default: endless)");

    /** {@code --wake}: {@code futex} or {@code none}; absent: the implementation's. */
    public static final Opt<String> WAKE = Opt.ofString("--wake", null, "how the writer wakes a reader that sleeps: "
            + "futex (the reader sleeps in the kernel, 'ring-read --sleep futex'; wirespeed's default) or none (it "
            + "does not sleep, or wakes by itself; agrona's and aeron's, whose readers wake by themselves)");

    /** {@code --idle-ms}. */
    public static final Opt<Long> IDLE_MS = Opt.ofLong("--idle-ms", 0L, "idle this long before each of the --count "
            + "frames, which then carry the send time in their first 8 bytes (for 'ring-read --wakes'), after --burst "
            + "frames sent at once (stamped 0) to warm the reader up (default ${DEFAULT-VALUE}: no idle)");

    /** {@code --burst}. */
    public static final Opt<Long> BURST = Opt.ofLong("--burst", 0L, "with --idle-ms, frames sent at once first "
            + "(default ${DEFAULT-VALUE})");

    /** The options of {@code ring-write}. */
    public static final Options OPTIONS = Options.of("ring-write",
            List.of(IMPL, PATH, REPLACE, CAPACITY, SIZE, COUNT, WAKE, IDLE_MS, BURST));

    /** A command with every option at its default. */
    public RingWriteCommand() {
        super(OPTIONS);
    }

    @Override
    public Integer call() {
        ShmImpl impl = args.get(IMPL);
        Path path = args.get(PATH);
        boolean replace = args.get(REPLACE);
        int capacity = args.get(CAPACITY);
        SizeRange size = args.get(SIZE);
        Long count = args.get(COUNT);
        long idleMs = args.get(IDLE_MS);
        long burst = args.get(BURST);
        PrintWriter err = err();
        Sleep sleep;
        try {
            if (count != null && count < 0 || idleMs < 0 || burst < 0 || idleMs > 0 && (count == null
                    || size.min() < 8)) {
                throw new IllegalArgumentException("--count=" + count + " must be >= 0, --idle-ms=" + idleMs + " and "
                        + "--burst=" + burst + " >= 0; --idle-ms needs --count and bodies of at least 8 bytes, not "
                        + "--size " + size);
            }
            sleep = wakes();
            if (replace) {
                Files.deleteIfExists(path);
            }
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            return usage(e.getMessage());
        } catch (IOException e) {
            return fail(ExitCode.IO_FAILURE, "--replace: " + e);
        }
        try (ShmLink link = impl.open(path, true, capacity, sleep); Outbound writer = link.outbound("")) {
            if (size.max() > link.maxFrameLength()) {
                return usage("--size " + size + " is longer than the ring's maxFrameLength=" + link.maxFrameLength()
                        + " (--impl " + impl + " --capacity " + capacity + ")");
            }
            err.println("ring at " + path);
            err.flush();
            return idleMs > 0 ? idle(writer, err) : stream(writer, err);
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        } catch (IOException | IllegalStateException e) {
            return fail(ExitCode.IO_FAILURE, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCode.IO_FAILURE;
        }
    }

    /** {@return how the link's writer wakes: a reader's sleep it wakes, or {@link Sleep#SPIN} for none} */
    private Sleep wakes() {
        ShmImpl impl = args.get(IMPL);
        String wake = args.get(WAKE);
        if (wake == null) {
            return impl == ShmImpl.WIRESPEED ? Sleep.FUTEX : Sleep.SPIN;
        }
        return switch (wake) {
            case "futex" -> {
                if (impl != ShmImpl.WIRESPEED) {
                    throw new IllegalArgumentException("--wake futex is the shared ring's; --impl " + impl + " takes "
                            + "none");
                }
                dev.wirespeed.linux.Futex.create(); // refused here, off Linux, rather than after the ring is made
                yield Sleep.FUTEX;
            }
            case "none" -> Sleep.SPIN;
            default -> throw new IllegalArgumentException("--wake=" + wake + ": futex or none");
        };
    }

    private int stream(Outbound writer, PrintWriter err) {
        SizeRange size = args.get(SIZE);
        Long count = args.get(COUNT);
        ByteBuffer pattern = ByteBuffer.wrap(SequenceStream.pattern(size.max()));
        SizeRange.Sizes next = size.sizes();
        long frames = count == null ? Long.MAX_VALUE : count;
        for (long i = 0; i < frames; i++) {
            int offset = SequenceStream.patternOffset(i);
            pattern.limit(offset + next.next()).position(offset);
            for (int spins = 0; !writer.offer(SequenceStream.type(i), pattern); spins++) {
                if ((spins & 0xFFFF) == 0xFFFF && writer.readerGone()) {
                    err.println("wirespeed ring-write: the reader went away after frame " + i);
                    return ExitCode.OK;
                }
                PingPong.idle(spins); // the ring full: the reader, on this core perhaps, needs the CPU
            }
        }
        return ExitCode.OK;
    }

    /** The warm-up burst, then each frame after {@code --idle-ms} of idle, stamped with its send time. */
    private int idle(Outbound writer, PrintWriter err) throws InterruptedException {
        SizeRange size = args.get(SIZE);
        Long count = args.get(COUNT);
        long idleMs = args.get(IDLE_MS);
        long burst = args.get(BURST);
        ByteBuffer body = ByteBuffer.allocate(size.max());
        for (long i = 0; i < burst + count; i++) {
            if (i >= burst) {
                TimeUnit.MILLISECONDS.sleep(idleMs); // the idle period itself, not a wait for something
            }
            for (int spins = 0;; spins++) {
                body.clear().putLong(0, i >= burst ? System.nanoTime() : 0);
                if (writer.offer(SequenceStream.type(i), body)) {
                    break;
                }
                if ((spins & 0xFFFF) == 0xFFFF && writer.readerGone()) {
                    err.println("wirespeed ring-write: the reader went away after frame " + i);
                    return ExitCode.OK;
                }
                PingPong.idle(spins); // the ring full: the reader, on this core perhaps, needs the CPU
            }
        }
        return ExitCode.OK;
    }
}
