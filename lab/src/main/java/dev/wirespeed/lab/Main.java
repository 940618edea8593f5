package dev.wirespeed.lab;

import dev.wirespeed.lab.client.ClientCommand;
import dev.wirespeed.lab.cli.LabCommand;
import dev.wirespeed.lab.latency.EchoCommand;
import dev.wirespeed.lab.latency.PingCommand;
import dev.wirespeed.lab.server.ServerCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code wirespeed} command line. */
@Command(name = "wirespeed", mixinStandardHelpOptions = true, version = "wirespeed 0.1.0",
        description = "Moves framed messages through sockets, pipes and files, and measures how fast.",
        subcommands = {ServerCommand.class, ClientCommand.class, EchoCommand.class, PingCommand.class, LabCommand.class})
public final class Main implements Runnable {
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
        System.exit(run(args));
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
        CommandLine commandLine = new CommandLine(new Main());
        commandLine.setCaseInsensitiveEnumValuesAllowed(true);
        return commandLine;
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required: server, client, echo, ping or lab");
    }
}
