package dev.wirespeed.lab.experiment;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Placeholder replaced below. */
@Command(name = "lab")
public final class LabCommand implements Callable<Integer> {
    /** A command whose options picocli sets. */
    public LabCommand() {
    }

    @Override
    public Integer call() {
        return 1;
    }
}
