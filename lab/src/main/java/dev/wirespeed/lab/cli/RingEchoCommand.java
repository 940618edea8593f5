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
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code wirespeed ring-echo}: the echo end of a ping-pong through shared memory, for {@code ring-ping}. */
@Command(name = "ring-echo", mixinStandardHelpOptions = true,
        description = {"Makes the two directions of a ping-pong through shared memory (the rings PATH.ping and "
                + "PATH.pong; for --impl aeron a media driver embedded in this process, its directory PATH-aeron, "
                + "and two IPC streams), prints 'listening on PATH' on standard error, and writes every frame that "
                + "'wirespeed ring-ping' sends back unchanged, until the ping closes its end. One ping per echo."})
public final class RingEchoCommand implements Callable<Integer> {
    /** A command whose options picocli sets. */
    public RingEchoCommand() {
    }

    @Spec
    CommandSpec spec;

    @Option(names = "--impl", defaultValue = "wirespeed", converter = Names.ShmImplName.class,
            description = "wirespeed (the library's SharedRing), agrona or aeron (default ${DEFAULT-VALUE})")
    ShmImpl impl;

    @Option(names = "--path", defaultValue = "/dev/shm/wirespeed.pingpong", description = "what the rings are "
            + "named after, made anew (default ${DEFAULT-VALUE})")
    Path path;

    @Option(names = "--capacity", defaultValue = "65536", description = "bytes of each ring, a power of two from "
            + "4096 (default ${DEFAULT-VALUE})")
    int capacity;

    @Option(names = "--sleep", defaultValue = "spin", converter = Names.SleepName.class, description = "what the echo "
            + "does while no frame comes: spin (default), or its peer's parking (futex for wirespeed, backoff for "
            + "agrona and aeron)")
    Sleep sleep;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        try (ShmLink link = impl.open(path, true, capacity, sleep); Inbound in = link.inbound(PingPong.PING);
                Outbound out = link.outbound(PingPong.PONG)) {
            err.println(Listening.PREFIX + path);
            err.flush();
            PingPong.echo(in, out);
            return ExitCode.OK;
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            err.println("wirespeed ring-echo: " + e.getMessage());
            return ExitCode.USAGE;
        } catch (CorruptRingException e) {
            err.println("wirespeed ring-echo: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        } catch (IOException | IllegalStateException e) {
            err.println("wirespeed ring-echo: " + e);
            return ExitCode.IO_FAILURE;
        }
    }
}
