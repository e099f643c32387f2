package dev.floe.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.pinot.tools.Command;
import org.apache.pinot.tools.admin.command.StartBrokerCommand;
import org.apache.pinot.tools.admin.command.StartControllerCommand;
import org.apache.pinot.tools.admin.command.StartServerCommand;
import org.apache.zookeeper.server.ServerConfig;
import org.apache.zookeeper.server.ZooKeeperServerMain;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;
import picocli.CommandLine;

/**
 * Starts one Pinot role for floe's integration tests:
 *
 * <pre>
 * Launch zookeeper PORT DATA_DIR                      ZooKeeper on 127.0.0.1:PORT
 * Launch controller|broker|server [--set KEY=VALUE]... [flags of StartController, ...]
 * </pre>
 *
 * The Pinot roles run pinot-tools' own Start*Command classes with their own flag parsing, but not
 * through PinotAdministrator, whose class initialiser insists on a Kafka stream plugin that is not
 * on Maven Central for this Pinot version. "--set" adds Pinot configuration overrides. The process
 * runs until it is killed.
 */
public final class Launch {
  private Launch() {
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      usage("missing role");
    }
    if (args[0].equals("zookeeper")) {
      runZookeeper(args);
      return;
    }
    Map<String, Object> overrides = new HashMap<>();
    List<String> flags = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      if (args[i].equals("--set") && i + 1 < args.length) {
        String[] kv = args[++i].split("=", 2);
        if (kv.length != 2) {
          usage("--set needs KEY=VALUE, got " + args[i]);
        }
        overrides.put(kv[0], kv[1]);
      } else {
        flags.add(args[i]);
      }
    }
    Command cmd = pinotCommand(args[0], overrides);
    new CommandLine(cmd).parseArgs(flags.toArray(new String[0]));
    if (!cmd.execute()) {
      System.err.println("floe pinot launcher: " + args[0] + " failed to start");
      System.exit(1);
    }
    System.err.println("floe pinot launcher: " + args[0] + " started");
    Thread.currentThread().join();
  }

  private static Command pinotCommand(String role, Map<String, Object> overrides) {
    switch (role) {
      case "controller":
        return new StartControllerCommand().setConfigOverrides(overrides);
      case "broker":
        return new StartBrokerCommand().setConfigOverrides(overrides);
      case "server":
        return new StartServerCommand().setConfigOverrides(overrides);
      default:
        usage("unknown role " + role);
        return null;
    }
  }

  /** Runs a standalone ZooKeeper bound to 127.0.0.1 only; blocks until killed. */
  private static void runZookeeper(String[] args) throws Exception {
    if (args.length != 3) {
      usage("zookeeper PORT DATA_DIR");
    }
    Properties props = new Properties();
    props.setProperty("clientPort", args[1]);
    props.setProperty("clientPortAddress", "127.0.0.1");
    props.setProperty("dataDir", args[2]);
    props.setProperty("tickTime", "2000");
    props.setProperty("maxClientCnxns", "0");
    props.setProperty("admin.enableServer", "false");
    QuorumPeerConfig qpc = new QuorumPeerConfig();
    qpc.parseProperties(props);
    ServerConfig cfg = new ServerConfig();
    cfg.readFrom(qpc);
    System.err.println("floe pinot launcher: zookeeper starting on 127.0.0.1:" + args[1]);
    new ZooKeeperServerMain().runFromConfig(cfg);
  }

  private static void usage(String msg) {
    System.err.println("usage: Launch zookeeper PORT DATA_DIR | Launch controller|broker|server "
        + "[--set KEY=VALUE]... [flags]: " + msg);
    System.exit(2);
  }
}
