package dev.wirespeed.lab.experiments.hostile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.Main;
import dev.wirespeed.lab.env.Jvm;
import dev.wirespeed.lab.experiment.CaseRunner;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.experiments.Experiments;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Table;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A tiny run of the hostile experiment end to end: quick mode, one attack on the library's Selector
 * loop and on Netty's echo, real processes. No figure is judged here, only that each is there.
 */
class HostileExperimentTest {
    @Test
    void isInTheRegistryAndRunsWhenNamedOrWithFull() {
        HostileExperiment hostile = (HostileExperiment) Experiments.byName("hostile").orElseThrow();
        assertTrue(Experiments.names(true).contains("hostile"));
        assertFalse(Experiments.names(false).contains("hostile"));
        assertFalse(hostile.inDefaultRun());
    }

    @Test
    void everyAttackRunsAgainstEveryServerThisMachineHasAttackByAttack() throws Exception {
        LabContext lab = new LabContext(Mode.QUICK, new Jvm(Main.class.getName(), null),
                new PrintWriter(Writer.nullWriter()), false);
        List<HostileCase> cases = new HostileExperiment().cases(lab);
        List<HostileServer> servers = List.of(HostileServer.values()).stream().filter(s -> s.unavailable() == null)
                .toList();
        List<Tls> engines = cases.stream().map(HostileCase::tls).filter(t -> t != Tls.NONE).distinct().toList();
        assertEquals(Tls.JDK, engines.get(0), "the JDK's engine is everywhere");
        long plain = List.of(Attack.values()).stream().filter(a -> !a.tls()).count();
        assertEquals((plain + (Attack.values().length - plain) * engines.size()) * servers.size(), cases.size(),
                cases.toString());
        assertEquals(new HostileCase(servers.get(0), Attack.ANNOUNCED), cases.get(0));
        assertEquals(new HostileCase(servers.get(servers.size() - 1), Attack.TLS_HANDSHAKE, engines.getLast()),
                cases.get(cases.size() - 1));
    }

    @Test
    void aQuickRunOfTheAnnouncedLengthAttackMeasuresEveryFigureOnOursAndNettys() throws Exception {
        LabContext lab = new LabContext(Mode.QUICK, new Jvm(Main.class.getName(), null),
                new PrintWriter(Writer.nullWriter()), false);
        HostileExperiment experiment = new HostileExperiment();
        HostileExperiment.Settings settings = HostileExperiment.settings(lab);
        Results<HostileCase, HostileResult> results = new Results<>();
        try (CaseRunner<HostileCase, HostileResult> runner = experiment.open(lab)) {
            for (HostileServer server : List.of(HostileServer.LOOP, HostileServer.NETTY)) {
                HostileCase kase = new HostileCase(server, Attack.ANNOUNCED);
                results.put(kase, runner.run(kase));
            }
        }
        for (HostileCase kase : results.cases()) {
            HostileResult r = results.get(kase);
            assertEquals(settings.hostile(), r.connections(), kase.toString());
            assertEquals(settings.hostile() / HostileExperiment.FIRST_PART, r.first(), kase.toString());
            // The announced length is a frame timeout's business, a minute away: each server holds every connection.
            assertEquals(Stats.exact(r.first()), r.heldBefore(), kase + ": held at the first reading");
            assertEquals(Stats.exact(r.first() + r.connections()), r.heldWith(), kase + ": held at the second");
            assertEquals(settings.runs(), r.runs(), kase.toString());
            assertEquals(r.runs(), r.alive(), kase + ": the server's process is alive after the attack");
            assertEquals(r.runs(), r.served(), kase + ": a new connection is served after the attack");
            assertEquals(settings.runs() * settings.rounds(), r.alone().runs(), kase.toString());
            assertEquals(settings.runs() * settings.rounds(), r.underAttack().runs(), kase.toString());
            assertTrue(r.rssBeforeKib().median() > 0 && r.bytesPerHeld().median() > 0, r.toString());
        }
        assertEquals(8, experiment.measurements(results, lab).size(),
                "per case: memory, connections held, rate under attack, alone");
        List<Table> tables = experiment.tables(results, lab);
        assertEquals(1, tables.size());
        assertEquals(2, tables.get(0).rows().size());
        assertEquals(List.of("5 + 50", "5", "55"), tables.get(0).rows().get(0).subList(2, 5), "conns, held before, with");
        assertEquals(List.of("alive", "rate", "memory"), experiment.findings(results, lab).stream()
                .map(HostileExperimentTest::topic).toList());
    }

    private static String topic(Finding f) {
        return f.claim().contains("alive") ? "alive" : f.claim().contains("frames a second") ? "rate" : "memory";
    }
}
