package dev.wirespeed.lab.experiments.idle;

import dev.wirespeed.lab.Idle;
import dev.wirespeed.lab.cli.Args;
import dev.wirespeed.lab.cli.ClientCommand;
import dev.wirespeed.lab.cli.PingCommand;
import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.lab.pingpong.EchoArgs;
import dev.wirespeed.lab.pingpong.EchoImpl;
import dev.wirespeed.lab.pingpong.Impl;
import java.util.ArrayList;
import java.util.List;

/**
 * One row of the idle experiment: the library over the JDK's {@code SocketChannel}, blocking in
 * {@code read}, or non-blocking and idling between empty calls with one of the {@link Idle} strategies.
 *
 * @param idle the strategy, or null for blocking
 */
public record IdleRow(Idle idle) {
    /** {@return every row: blocking first, then each strategy} */
    public static List<IdleRow> all() {
        List<IdleRow> rows = new ArrayList<>(List.of(new IdleRow(null)));
        for (Idle idle : Idle.values()) {
            rows.add(new IdleRow(idle));
        }
        return rows;
    }

    /** {@return the row's name in tables and results} */
    public String name() {
        return idle == null ? "blocking" : idle.cliName() + (idle == Idle.SPIN ? " (default)" : "");
    }

    /** {@return a client's line reading as this row: its strategy and idle strategy} */
    Args client(Args client) {
        return client.with(ClientCommand.STRATEGY, idle == null ? Strategies.WIRESPEED : Strategies.WIRESPEED_SPIN)
                .with(ClientCommand.IDLE, idle);
    }

    /** {@return an echo's line serving as this row} */
    Args echo(Args echo) {
        EchoArgs row = EchoArgs.of(EchoImpl.JDK);
        return (idle == null ? row : row.withSpin(idle)).on(echo);
    }

    /** {@return a ping's line pinging as this row} */
    Args ping(Args ping) {
        return ping.with(PingCommand.IMPL, idle == null ? Impl.JDK : Impl.JDK_SPIN).with(PingCommand.IDLE, idle);
    }
}
