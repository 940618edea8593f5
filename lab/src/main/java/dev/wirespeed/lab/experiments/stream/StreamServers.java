package dev.wirespeed.lab.experiments.stream;

import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.cli.Args;
import dev.wirespeed.lab.cli.ListenOptions;
import dev.wirespeed.lab.cli.ServerCommand;
import dev.wirespeed.lab.env.Children;
import dev.wirespeed.lab.env.Jvm;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.server.SizeRange;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The long-running socket servers of one placement, each started on first use and killed on close:
 * the batching Java server, the Java server writing per frame (tcp only) and the C writer.
 */
final class StreamServers implements AutoCloseable {
    private final Link link;
    private final Placement placement;
    private final Jvm jvm;
    private final Path ceiling;
    private Process java;
    private Process javaPerFrame;
    private Process c;
    private String javaAddress;
    private String javaPerFrameAddress;
    private String cAddress;

    StreamServers(Link link, Placement placement, Jvm jvm, Path ceiling) {
        this.link = link;
        this.placement = placement;
        this.jvm = jvm;
        this.ceiling = ceiling;
    }

    Placement placement() {
        return placement;
    }

    /** {@return the port (tcp) or socket path (unix) of the server for {@code writer}} */
    String address(StreamCase.Writer writer) throws IOException {
        return switch (writer) {
            case JAVA -> java();
            case JAVA_PER_FRAME -> javaPerFrame();
            case C -> c();
        };
    }

    private String java() throws IOException {
        if (java == null) {
            Args args = Args.of(ServerCommand.OPTIONS).with(ServerCommand.TRANSPORT, link.server())
                    .with(ServerCommand.SIZE, new SizeRange(StreamExperiment.SIZE, StreamExperiment.SIZE));
            args = link == Link.TCP ? args.with(ListenOptions.PORT, 0) : args.with(ListenOptions.PATH,
                    Path.of(socketPath("java")));
            java = jvm.start(placement.serverCpu(), "server", args.toArgs());
            javaAddress = Children.awaitListening(java, link == Link.UNIX ? socketPath("java") : null);
        }
        return javaAddress;
    }

    private String javaPerFrame() throws IOException {
        if (javaPerFrame == null) {
            javaPerFrame = jvm.start(placement.serverCpu(), "server-per-frame", Args.of(ServerCommand.OPTIONS)
                    .with(ServerCommand.TRANSPORT, Transport.TCP).with(ListenOptions.PORT, 0)
                    .with(ServerCommand.SIZE, new SizeRange(StreamExperiment.SIZE, StreamExperiment.SIZE))
                    .with(ServerCommand.WRITE_PER_FRAME).toArgs());
            javaPerFrameAddress = Children.awaitListening(javaPerFrame, null);
        }
        return javaPerFrameAddress;
    }

    /** The C writer's port (tcp) or socket path (unix). */
    String c() throws IOException {
        if (c == null) {
            List<String> command = new ArrayList<>(List.of(ceiling.toString(), "write", link.id()));
            command.addAll(link == Link.TCP ? List.of("127.0.0.1", "0") : List.of(socketPath("c")));
            c = new ProcessBuilder(Children.pinned(placement.serverCpu(), command)).start();
            cAddress = Children.awaitListening(c, link == Link.UNIX ? socketPath("c") : null);
        }
        return cAddress;
    }

    private static String socketPath(String who) {
        return Path.of(System.getProperty("java.io.tmpdir"), "wirespeed-lab-" + ProcessHandle.current().pid() + "-"
                + who + ".sock").toString();
    }

    @Override
    public void close() {
        Children.stop(java);
        Children.stop(javaPerFrame);
        Children.stop(c);
    }
}
