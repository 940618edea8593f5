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
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

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
public final class RingWriteCommand implements Callable<Integer> {
    /** A command whose options picocli sets. */
    public RingWriteCommand() {
    }

    @Spec
    CommandSpec spec;

    @Option(names = "--impl", defaultValue = "wirespeed", converter = Names.ShmImplName.class,
            description = "wirespeed (the library's SharedRing), agrona or aeron (default ${DEFAULT-VALUE})")
    ShmImpl impl;

    @Option(names = "--layout", defaultValue = "one-to-one", converter = Names.LayoutName.class,
            description = "one-to-one (this the one writer, which makes the ring) or many-to-one (this one of many "
                    + "writers into the ring the reader made) (default ${DEFAULT-VALUE})")
    Layout layout;

    @Option(names = "--writer", description = "with --layout many-to-one, this writer's number, 0 to the reader's "
            + "--writers less 1: the type of its frames (default 0)")
    Integer writer;

    @Option(names = "--path", defaultValue = "/dev/shm/wirespeed.ring", description = "the ring's file, made "
            + "anew; with --layout many-to-one the reader's (default ${DEFAULT-VALUE})")
    Path path;

    @Option(names = "--replace", description = "delete a file already at --path first (a ring left by a writer "
            + "that died); not with --layout many-to-one, whose reader makes the ring")
    boolean replace;

    @Option(names = "--capacity", description = "bytes of frames the ring holds: a power of two from 4096 to "
            + "1073741824 (default 1048576); Aeron's streams take its driver's default; not with --layout "
            + "many-to-one, whose reader makes the ring")
    Integer capacity;

    @Option(names = "--size", defaultValue = "100", converter = ServerCommand.SizeConverter.class,
            description = "body size N or MIN-MAX (default ${DEFAULT-VALUE})")
    SizeRange size = SizeRange.parse("100");

    @Option(names = "--count", description = "frames to write (default: endless)")
    Long count;

    @Option(names = "--wake", description = "how the writer wakes a reader that sleeps: futex (the reader sleeps "
            + "in the kernel, 'ring-read --sleep futex'; wirespeed's default) or none (it does not sleep, or wakes by "
            + "itself; agrona's and aeron's, whose readers wake by themselves)")
    String wake;

    @Option(names = "--idle-ms", defaultValue = "0", description = "idle this long before each of the --count frames, "
            + "which then carry the send time in their first 8 bytes (for 'ring-read --wakes'), after --burst frames "
            + "sent at once (stamped 0) to warm the reader up (default ${DEFAULT-VALUE}: no idle)")
    long idleMs;

    @Option(names = "--burst", defaultValue = "0", description = "with --idle-ms, frames sent at once first "
            + "(default ${DEFAULT-VALUE})")
    long burst;

    @Option(names = "--warm-wakes", defaultValue = "0", description = "with --idle-ms, frames sent after the burst "
            + "each after " + WARM_IDLE_MS + " ms of idle (stamped 0), so that the reader falls asleep and is woken "
            + "this many times before the counted frames: the code of a wake-up is then compiled in both processes, "
            + "as in a program that has run a while (default ${DEFAULT-VALUE})")
    long warmWakes;

    /** The idle before each of the {@link #warmWakes} frames: long enough for the reader to fall asleep. */
    static final long WARM_IDLE_MS = 1;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        Sleep sleep;
        try {
            if (count != null && count < 0 || idleMs < 0 || burst < 0 || warmWakes < 0 || idleMs > 0 && (count == null
                    || size.min() < 8)) {
                throw new IllegalArgumentException("--count=" + count + " must be >= 0, --idle-ms=" + idleMs + " and "
                        + "--burst=" + burst + ", --warm-wakes=" + warmWakes + " >= 0; --idle-ms needs --count and bodies of at least 8 bytes, not "
                        + "--size " + size);
            }
            if (layout == Layout.MANY_TO_ONE) {
                checkMany();
            } else if (writer != null) {
                throw new IllegalArgumentException("--writer=" + writer + " is for --layout many-to-one");
            }
            sleep = wakes();
            if (replace) {
                Files.deleteIfExists(path);
            }
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            err.println("wirespeed ring-write: " + e.getMessage());
            return ExitCode.USAGE;
        } catch (IOException e) {
            err.println("wirespeed ring-write: --replace: " + e);
            return ExitCode.IO_FAILURE;
        }
        boolean many = layout == Layout.MANY_TO_ONE;
        int bytes = capacity == null ? 1 << 20 : capacity;
        try (ShmLink link = impl.open(path, !many, many ? 0 : bytes, sleep, layout); Outbound out = link.outbound("")) {
            if (size.max() > link.maxFrameLength()) {
                err.println("wirespeed ring-write: --size " + size + " is longer than the ring's maxFrameLength="
                        + link.maxFrameLength() + " (--impl " + impl + (many ? "" : " --capacity " + bytes) + ")");
                return ExitCode.USAGE;
            }
            err.println(many ? "writer " + writer + " on " + path : "ring at " + path);
            err.flush();
            return many ? manyStream(out, err) : idleMs > 0 ? idle(out, err) : stream(out, err);
        } catch (IllegalArgumentException e) {
            err.println("wirespeed ring-write: " + e.getMessage());
            return ExitCode.USAGE;
        } catch (IOException | IllegalStateException e) {
            err.println("wirespeed ring-write: " + e);
            return ExitCode.IO_FAILURE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCode.IO_FAILURE;
        }
    }

    /** Refuses what a many-to-one writer does not take: the reader makes the ring; a body holds the index. */
    private void checkMany() {
        if (writer == null) {
            writer = 0;
        }
        if (writer < 0 || capacity != null || replace || idleMs > 0 || size.min() < WriterStreams.MIN_BODY) {
            throw new IllegalArgumentException("--layout many-to-one takes --writer=" + writer + " >= 0, bodies of "
                    + "at least " + WriterStreams.MIN_BODY + " bytes (the frame's index), not --size " + size.min()
                    + "-" + size.max() + ", and "
                    + "no --capacity, --replace (the reader makes the ring) nor --idle-ms");
        }
    }

    /** {@return how the link's writer wakes: a reader's sleep it wakes, or {@link Sleep#SPIN} for none} */
    private Sleep wakes() {
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
    private int manyStream(Outbound out, PrintWriter err) {
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
     * The warm-up burst, the warm-up wake-ups, then each frame after {@link #idleMs} of idle, stamped with its
     * send time.
     */
    private int idle(Outbound writer, PrintWriter err) throws InterruptedException {
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
