package dev.wirespeed.lab;

import dev.wirespeed.lab.cli.ClientCommand;
import dev.wirespeed.lab.cli.DirectLine;
import dev.wirespeed.lab.cli.EchoCommand;
import dev.wirespeed.lab.cli.HandshakesCommand;
import dev.wirespeed.lab.cli.LoadCommand;
import dev.wirespeed.lab.cli.LabCommand;
import dev.wirespeed.lab.cli.PicocliOptions;
import dev.wirespeed.lab.cli.PingCommand;
import dev.wirespeed.lab.cli.RingEchoCommand;
import dev.wirespeed.lab.cli.RingPingCommand;
import dev.wirespeed.lab.cli.RingReadCommand;
import dev.wirespeed.lab.cli.RingWriteCommand;
import dev.wirespeed.lab.cli.ServerCommand;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/** The {@code wirespeed} command line. */
@Command(name = "wirespeed", mixinStandardHelpOptions = true, version = "wirespeed 0.1.0",
        description = "Moves framed messages through sockets, pipes and files, and measures how fast.")
public final class Main implements Runnable {
    /** The commands by name, in the order help lists them. */
    private static final Map<String, Supplier<Object>> COMMANDS = new LinkedHashMap<>();

    static {
        COMMANDS.put("server", ServerCommand::new);
        COMMANDS.put("client", ClientCommand::new);
        COMMANDS.put("echo", EchoCommand::new);
        COMMANDS.put("ping", PingCommand::new);
        COMMANDS.put("load", LoadCommand::new);
        COMMANDS.put("handshakes", HandshakesCommand::new);
        COMMANDS.put("ring-write", RingWriteCommand::new);
        COMMANDS.put("ring-read", RingReadCommand::new);
        COMMANDS.put("ring-ping", RingPingCommand::new);
        COMMANDS.put("ring-echo", RingEchoCommand::new);
        COMMANDS.put("lab", LabCommand::new);
    }

    /** A command whose options picocli sets. */
    public Main() {
    }

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /**
     * Runs the command and exits with its code.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        // Picocli builds its model of a command in code compiled for Java 5 that no class-data archive
        // holds: most of the start of a short-lived JVM (the lab starts hundreds). The lines the lab gives
        // its children are parsed without it, from the same option tables; any other line is picocli's.
        int direct = DirectLine.run(args);
        if (direct >= 0) {
            System.exit(direct);
        }
        // A known command gets a parser of its own, which spares picocli the annotations of the others.
        Supplier<Object> only = args.length > 0 ? COMMANDS.get(args[0]) : null;
        CommandLine commandLine = only == null ? commandLine() : commandLine(Map.of(args[0], only));
        System.exit(commandLine.execute(args));
    }

    /**
     * Runs the command.
     *
     * @param args the command line
     * @return the exit code ({@link ExitCode})
     */
    public static int run(String... args) {
        return commandLine().execute(args);
    }

    /**
     * {@return the command line, ready to execute}: tests set its output and error writers
     */
    public static CommandLine commandLine() {
        return commandLine(COMMANDS);
    }

    private static CommandLine commandLine(Map<String, Supplier<Object>> commands) {
        CommandLine commandLine = new CommandLine(new Main());
        commands.forEach((name, command) -> commandLine.addSubcommand(name, PicocliOptions.spec(command.get())));
        commandLine.setCaseInsensitiveEnumValuesAllowed(true);
        return commandLine;
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required: server, client, echo, ping or lab");
    }
}
