package dev.wirespeed.lab.cli;

import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.Listening;
import dev.wirespeed.lab.shm.Inbound;
import dev.wirespeed.lab.shm.Outbound;
import dev.wirespeed.lab.shm.PingPong;
import dev.wirespeed.lab.shm.ShmImpl;
import dev.wirespeed.lab.shm.ShmLink;
import dev.wirespeed.lab.shm.Sleep;
import dev.wirespeed.shm.CorruptRingException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code wirespeed ring-echo}: the echo end of a ping-pong through shared memory, for {@code ring-ping}. */
@Command(name = "ring-echo", mixinStandardHelpOptions = true,
        description = {"Makes the two directions of a ping-pong through shared memory (the rings PATH.ping and "
                + "PATH.pong; for --impl aeron a media driver embedded in this process, its directory PATH-aeron, "
                + "and two IPC streams), prints 'listening on PATH' on standard error, and writes every frame that "
                + "'wirespeed ring-ping' sends back unchanged, until the ping closes its end. One ping per echo."})
public final class RingEchoCommand extends DirectCommand {
    /** {@code --impl}. */
    public static final Opt<ShmImpl> IMPL = RingReadCommand.IMPL;

    /** {@code --path}. */
    public static final Opt<Path> PATH = Opt.ofPath("--path", Path.of("/dev/shm/wirespeed.pingpong"), "what the rings "
            + "are named after, made anew (default ${DEFAULT-VALUE})");

    /** {@code --capacity}. */
    public static final Opt<Integer> CAPACITY = Opt.ofInt("--capacity", 1 << 16, "bytes of each ring, a power of two "
            + "from 4096 (default ${DEFAULT-VALUE})");

    /** {@code --sleep}. */
    public static final Opt<Sleep> SLEEP = Opt.ofName("--sleep", "--sleep", Sleep.values(), Sleep.SPIN, "what the "
            + "echo does while no frame comes: spin (default), or its peer's parking (futex for wirespeed, backoff for "
            + "agrona and aeron)");

    /** The options of {@code ring-echo}. */
    public static final Options OPTIONS = Options.of("ring-echo", List.of(IMPL, PATH, CAPACITY, SLEEP));

    /** A command with every option at its default. */
    public RingEchoCommand() {
        super(OPTIONS);
    }

    @Override
    public Integer call() {
        ShmImpl impl = args.get(IMPL);
        Path path = args.get(PATH);
        int capacity = args.get(CAPACITY);
        Sleep sleep = args.get(SLEEP);
        PrintWriter err = err();
        try (ShmLink link = impl.open(path, true, capacity, sleep); Inbound in = link.inbound(PingPong.PING);
                Outbound out = link.outbound(PingPong.PONG)) {
            err.println(Listening.PREFIX + path);
            err.flush();
            PingPong.echo(in, out);
            return ExitCode.OK;
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            return usage(e.getMessage());
        } catch (CorruptRingException e) {
            return fail(ExitCode.BAD_INPUT, e.getMessage());
        } catch (IOException | IllegalStateException e) {
            return fail(ExitCode.IO_FAILURE, e.toString());
        }
    }
}
