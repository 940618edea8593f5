package dev.wirespeed.lab.cli;

import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.server.SizeRange;
import dev.wirespeed.lab.shm.Layout;
import dev.wirespeed.lab.shm.Outbound;
import dev.wirespeed.lab.shm.PingPong;
import dev.wirespeed.lab.shm.ShmImpl;
import dev.wirespeed.lab.shm.ShmLink;
import dev.wirespeed.lab.shm.Sleep;
import dev.wirespeed.lab.shm.WriterStreams;
import dev.wirespeed.testkit.SequenceStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;

/** {@code wirespeed ring-write}: the sequence stream into shared memory, for {@code ring-read}. */
@Command(name = "ring-write", mixinStandardHelpOptions = true,
        description = {"Makes a shared ring (a file under /dev/shm, memory, which another process maps) and writes "
                + "the sequence stream into it (frames 0, 1, 2, ...), waiting while the ring is full: the other end "
                + "of 'wirespeed ring-read'. Ends after --count frames, closing its end (the reader then reads to "
                + "the last frame and ends), or when the reader goes away. --impl agrona writes through Agrona's "
                + "OneToOneRingBuffer over the file instead, --impl aeron through Aeron's IPC, with a media driver "
                + "embedded in this process (its directory PATH-aeron).",
            "With --layout many-to-one it is one of several writers (each with a --writer number of its own) into a "
                + "ring that 'wirespeed ring-read --layout many-to-one --writers N' made (the library's ManyToOneRing; "
                + "with --impl agrona Agrona's ManyToOneRingBuffer; with --impl aeron a concurrent publication, whose "
                + "driver the reader embeds): it waits for the ring, then writes its own stream, frame i of type "
                + "--writer with i in the body's first 8 bytes, and after --count frames an empty frame of that type, "
                + "its end; the reader checks each writer's stream apart. Endless, it stops once the reader is gone.",
            "Prints 'ring at PATH' on standard error once the ring is made ('writer W on PATH' once a many-to-one "
                + "writer has joined). docs/shared-ring.md has both layouts."})
public final class RingWriteCommand extends DirectCommand {
    /** The idle before each of the {@link #WARM_WAKES} frames: long enough for the reader to fall asleep. */
    static final long WARM_IDLE_MS = 1;

    /** The ring's capacity where {@link #CAPACITY} is absent. */
    static final int DEFAULT_CAPACITY = 1 << 20;

    /** {@code --impl}. */
    public static final Opt<ShmImpl> IMPL = RingReadCommand.IMPL;

    /** {@code --layout}. */
    public static final Opt<Layout> LAYOUT = Opt.ofName("--layout", "--layout", Layout.values(), Layout.ONE_TO_ONE,
            "one-to-one (this the one writer, which makes the ring) or many-to-one (this one of many writers into the "
            + "ring the reader made) (default ${DEFAULT-VALUE})");

    /** {@code --writer}; absent: 0 with {@code --layout many-to-one}, refused with any other. */
    public static final Opt<Integer> WRITER = Opt.ofInt("--writer", null, "with --layout many-to-one, this writer's "
            + "number, 0 to the reader's --writers less 1: the type of its frames (default 0)");

    /** {@code --path}. */
    public static final Opt<Path> PATH = Opt.ofPath("--path", Path.of("/dev/shm/wirespeed.ring"), "the ring's file, "
            + "made anew; with --layout many-to-one the reader's (default ${DEFAULT-VALUE})");

    /** {@code --replace}. */
    public static final Opt<Boolean> REPLACE = Opt.flag("--replace", "delete a file already at --path first (a ring "
            + "left by a writer that died); not with --layout many-to-one, whose reader makes the ring");

    /**
     * {@code --capacity}; absent: {@link #DEFAULT_CAPACITY}, and the only way a many-to-one writer takes it, as
     * its reader makes the ring.
     */
    public static final Opt<Integer> CAPACITY = Opt.ofInt("--capacity", null, "bytes of frames the ring holds: a "
            + "power of two from 4096 to 1073741824 (default " + DEFAULT_CAPACITY + "); Aeron's streams take its "
            + "driver's default; not with --layout many-to-one, whose reader makes the ring");

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

    /** {@code --warm-wakes}. */
    public static final Opt<Long> WARM_WAKES = Opt.ofLong("--warm-wakes", 0L, "with --idle-ms, frames sent after the "
            + "burst each after " + WARM_IDLE_MS + " ms of idle (stamped 0), so that the reader falls asleep and is "
            + "woken this many times before the counted frames: the code of a wake-up is then compiled in both "
            + "processes, as in a program that has run a while (default ${DEFAULT-VALUE})");

    /** The options of {@code ring-write}. */
    public static final Options OPTIONS = Options.of("ring-write", List.of(IMPL, LAYOUT, WRITER, PATH, REPLACE,
            CAPACITY, SIZE, COUNT, WAKE, IDLE_MS, BURST, WARM_WAKES));

    /** A command with every option at its default. */
    public RingWriteCommand() {
        super(OPTIONS);
    }

    @Override
    public Integer call() {
        ShmImpl impl = args.get(IMPL);
        Layout layout = args.get(LAYOUT);
        Integer writer = args.get(WRITER);
        Path path = args.get(PATH);
        boolean replace = args.get(REPLACE);
        Integer capacity = args.get(CAPACITY);
        SizeRange size = args.get(SIZE);
        Long count = args.get(COUNT);
        long idleMs = args.get(IDLE_MS);
        long burst = args.get(BURST);
        long warmWakes = args.get(WARM_WAKES);
        PrintWriter err = err();
        boolean many = layout == Layout.MANY_TO_ONE;
        Sleep sleep;
        try {
            if (count != null && count < 0 || idleMs < 0 || burst < 0 || warmWakes < 0 || idleMs > 0 && (count == null
                    || size.min() < 8)) {
                throw new IllegalArgumentException("--count=" + count + " must be >= 0, --idle-ms=" + idleMs + " and "
                        + "--burst=" + burst + ", --warm-wakes=" + warmWakes + " >= 0; --idle-ms needs --count and "
                        + "bodies of at least 8 bytes, not --size " + size);
            }
            if (many) {
                writer = checkMany();
            } else if (writer != null) {
                throw new IllegalArgumentException("--writer=" + writer + " is for --layout many-to-one");
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
        int bytes = capacity == null ? DEFAULT_CAPACITY : capacity;
        try (ShmLink link = impl.open(path, !many, many ? 0 : bytes, sleep, layout); Outbound out = link.outbound("")) {
            if (size.max() > link.maxFrameLength()) {
                return usage("--size " + size + " is longer than the ring's maxFrameLength=" + link.maxFrameLength()
                        + " (--impl " + impl + (many ? "" : " --capacity " + bytes) + ")");
            }
            err.println(many ? "writer " + writer + " on " + path : "ring at " + path);
            err.flush();
            return many ? manyStream(out, err, writer) : idleMs > 0 ? idle(out, err) : stream(out, err);
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        } catch (IOException | IllegalStateException e) {
            return fail(ExitCode.IO_FAILURE, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCode.IO_FAILURE;
        }
    }

    /**
     * {@return a many-to-one writer's number}, refusing what such a writer does not take: the reader makes the
     * ring; a body holds the index
     */
    private int checkMany() {
        int writer = args.get(WRITER) == null ? 0 : args.get(WRITER);
        SizeRange size = args.get(SIZE);
        if (writer < 0 || args.get(CAPACITY) != null || args.get(REPLACE) || args.get(IDLE_MS) > 0
                || size.min() < WriterStreams.MIN_BODY) {
            throw new IllegalArgumentException("--layout many-to-one takes --writer=" + writer + " >= 0, bodies of "
                    + "at least " + WriterStreams.MIN_BODY + " bytes (the frame's index), not --size " + size.min()
                    + "-" + size.max() + ", and no --capacity, --replace (the reader makes the ring) nor --idle-ms");
        }
        return writer;
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

    /** This writer's stream of {@link WriterStreams}, then its end where it has a count. */
    private int manyStream(Outbound out, PrintWriter err, int writer) {
        SizeRange size = args.get(SIZE);
        Long count = args.get(COUNT);
        byte[] pattern = SequenceStream.pattern(size.max());
        ByteBuffer body = ByteBuffer.allocate(size.max());
        SizeRange.Sizes next = size.sizes();
        long frames = count == null ? Long.MAX_VALUE : count;
        for (long i = 0; i <= frames; i++) {
            if (i < frames) {
                WriterStreams.fill(body.clear(), pattern, i, next.next());
            } else if (count != null) {
                body.clear().limit(0); // the end
            } else {
                break;
            }
            for (int spins = 0; !out.offer(writer, body); spins++) {
                if ((spins & 0xFFFF) == 0xFFFF && out.readerGone()) {
                    err.println("wirespeed ring-write: the reader went away after frame " + i + " of writer " + writer);
                    return ExitCode.OK;
                }
                PingPong.idle(spins); // the ring full: the reader, on this core perhaps, needs the CPU
            }
        }
        return ExitCode.OK;
    }

    /**
     * The warm-up burst, the warm-up wake-ups, then each frame after {@code --idle-ms} of idle, stamped with its
     * send time.
     */
    private int idle(Outbound writer, PrintWriter err) throws InterruptedException {
        SizeRange size = args.get(SIZE);
        Long count = args.get(COUNT);
        long idleMs = args.get(IDLE_MS);
        long burst = args.get(BURST);
        long warmWakes = args.get(WARM_WAKES);
        ByteBuffer body = ByteBuffer.allocate(size.max());
        long counted = burst + warmWakes;
        for (long i = 0; i < counted + count; i++) {
            if (i >= burst) { // the idle period itself, not a wait for something
                TimeUnit.MILLISECONDS.sleep(i < counted ? WARM_IDLE_MS : idleMs);
            }
            for (int spins = 0;; spins++) {
                body.clear().putLong(0, i >= counted ? System.nanoTime() : 0);
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
