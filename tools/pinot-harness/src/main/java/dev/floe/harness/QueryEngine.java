package dev.floe.harness;

import java.io.File;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.commons.io.FileUtils;
import org.apache.pinot.common.datatable.DataTable;
import org.apache.pinot.common.datatable.DataTableFactory;
import org.apache.pinot.common.metrics.BrokerMetrics;
import org.apache.pinot.common.request.BrokerRequest;
import org.apache.pinot.common.request.DataSource;
import org.apache.pinot.common.request.PinotQuery;
import org.apache.pinot.common.response.broker.BrokerResponseNative;
import org.apache.pinot.core.operator.blocks.InstanceResponseBlock;
import org.apache.pinot.core.operator.blocks.results.ResultsBlockUtils;
import org.apache.pinot.core.plan.Plan;
import org.apache.pinot.core.plan.maker.InstancePlanMakerImplV2;
import org.apache.pinot.core.plan.maker.PlanMaker;
import org.apache.pinot.core.query.config.SegmentPrunerConfig;
import org.apache.pinot.core.query.optimizer.QueryOptimizer;
import org.apache.pinot.core.query.pruner.SegmentPrunerService;
import org.apache.pinot.core.query.pruner.SegmentPrunerStatistics;
import org.apache.pinot.core.query.reduce.BrokerReduceService;
import org.apache.pinot.core.query.request.context.QueryContext;
import org.apache.pinot.core.query.request.context.utils.QueryContextConverterUtils;
import org.apache.pinot.core.transport.ServerRoutingInstance;
import org.apache.pinot.core.util.GapfillUtils;
import org.apache.pinot.segment.spi.IndexSegment;
import org.apache.pinot.segment.spi.SegmentContext;
import org.apache.pinot.spi.accounting.ThreadAccountantUtils;
import org.apache.pinot.spi.config.table.TableType;
import org.apache.pinot.spi.env.PinotConfiguration;
import org.apache.pinot.spi.exception.QueryErrorCode;
import org.apache.pinot.spi.query.QueryExecutionContext;
import org.apache.pinot.spi.query.QueryThreadContext;
import org.apache.pinot.spi.utils.CommonConstants.Broker;
import org.apache.pinot.spi.utils.builder.TableNameBuilder;
import org.apache.pinot.sql.parsers.CalciteSqlCompiler;
import org.apache.pinot.sql.parsers.CalciteSqlParser;

/**
 * Pinot's single-stage query engine over segments loaded in this JVM: the
 * broker's compile and rewrite steps, one "server" that prunes, plans and
 * executes over the table's loaded segments and serializes its DataTable,
 * and the broker's reduce of that DataTable into a BrokerResponseNative.
 *
 * <p>Null handling is on for every query (as a broker with
 * pinot.broker.query.enable.null.handling=true sets it), unless the query
 * sets enableNullHandling itself. Of the broker's rewrites, this engine
 * applies the ones an OFFLINE table without expression overrides, timestamp
 * indexes or partitioned distinct counts goes through: gapfill stripping and
 * the QueryOptimizer with the table's schema. It does not correct the case
 * of column names, and does not rewrite aggregations of multi-value columns
 * (write distinctCountMV etc. yourself).
 */
final class QueryEngine implements AutoCloseable {
  private static final long TIMEOUT_MS = 60_000L;

  private final Map<String, LoadedTable> _tables = new TreeMap<>();
  private final File _workRoot;
  private final PlanMaker _planMaker = new InstancePlanMakerImplV2();
  private final QueryOptimizer _optimizer = new QueryOptimizer();
  private final SegmentPrunerService _pruner =
      new SegmentPrunerService(new SegmentPrunerConfig(new PinotConfiguration()));
  private final BrokerReduceService _reducer =
      new BrokerReduceService(new PinotConfiguration(Map.of(Broker.CONFIG_OF_MAX_REDUCE_THREADS_PER_QUERY, 2)));
  private final ExecutorService _executor =
      QueryThreadContext.contextAwareExecutorService(Executors.newFixedThreadPool(2));
  private final AtomicLong _requestIds = new AtomicLong();

  QueryEngine(File workRoot) {
    _workRoot = workRoot;
  }

  /** Loads (or reloads) a table: segments already loaded from the same file are kept. */
  LoadedTable.LoadResult load(String table, File schemaFile, File tableConfigFile, List<File> segments)
      throws Exception {
    LoadedTable t = _tables.get(table);
    if (t == null) {
      t = new LoadedTable(table, new File(_workRoot, "t" + _tables.size() + "-" + table));
      _tables.put(table, t);
    }
    return t.load(schemaFile, tableConfigFile, segments);
  }

  /** Unloads a table; unknown tables are ignored. */
  void drop(String table) {
    LoadedTable t = _tables.remove(table);
    if (t != null) {
      t.close();
    }
  }

  /**
   * Runs one SQL query the way a broker and one server would. Problems a
   * broker reports (parse errors, unknown tables, execution errors) come
   * back as exceptions inside the response, not as Java exceptions.
   */
  BrokerResponseNative query(String sql) {
    long requestId = _requestIds.incrementAndGet();
    long start = System.currentTimeMillis();
    PinotQuery pinotQuery;
    try {
      pinotQuery = CalciteSqlParser.compileToPinotQuery(sql);
    } catch (Exception e) {
      return new BrokerResponseNative(QueryErrorCode.SQL_PARSING, Main.describe(e));
    }
    if (pinotQuery.getQueryOptions() == null) {
      pinotQuery.setQueryOptions(new HashMap<>());
    }
    pinotQuery.getQueryOptions().putIfAbsent(Broker.Request.QueryOptionKey.ENABLE_NULL_HANDLING, "true");
    pinotQuery.getQueryOptions().putIfAbsent(Broker.Request.QueryOptionKey.TIMEOUT_MS, Long.toString(TIMEOUT_MS));
    DataSource dataSource = pinotQuery.getDataSource();
    if (dataSource == null || dataSource.getTableName() == null) {
      return new BrokerResponseNative(QueryErrorCode.QUERY_VALIDATION, "Data source (FROM clause) not found");
    }
    String raw = TableNameBuilder.extractRawTableName(dataSource.getTableName());
    LoadedTable table = _tables.get(raw);
    if (table == null) {
      return new BrokerResponseNative(QueryErrorCode.TABLE_DOES_NOT_EXIST, "table " + raw + " is not loaded");
    }
    String offline = TableNameBuilder.OFFLINE.tableNameWithType(raw);
    dataSource.setTableName(offline);
    PinotQuery serverQuery = GapfillUtils.stripGapfill(pinotQuery);
    _optimizer.optimize(serverQuery, table.schema());
    BrokerRequest brokerRequest = CalciteSqlCompiler.convertToBrokerRequest(pinotQuery);
    BrokerRequest serverBrokerRequest =
        serverQuery == pinotQuery ? brokerRequest : CalciteSqlCompiler.convertToBrokerRequest(serverQuery);
    QueryExecutionContext ctx = new QueryExecutionContext(QueryExecutionContext.QueryType.SSE, requestId,
        Long.toString(requestId), "default", start, start + TIMEOUT_MS, start + TIMEOUT_MS, "floe-harness",
        "floe-harness", "");
    try (QueryThreadContext ignored = QueryThreadContext.open(ctx, ThreadAccountantUtils.getNoOpAccountant())) {
      DataTable serverResponse = DataTableFactory.getDataTable(serve(serverQuery, table, start));
      Map<ServerRoutingInstance, DataTable> responses = new HashMap<>();
      responses.put(new ServerRoutingInstance("localhost", 0, TableType.OFFLINE), serverResponse);
      BrokerResponseNative response = _reducer.reduceOnDataTable(brokerRequest, serverBrokerRequest, responses,
          TIMEOUT_MS, BrokerMetrics.get());
      response.setRequestId(Long.toString(requestId));
      response.setNumServersQueried(1);
      response.setNumServersResponded(1);
      response.setTimeUsedMs(System.currentTimeMillis() - start);
      return response;
    } catch (Exception e) {
      e.printStackTrace(System.err);
      return new BrokerResponseNative(QueryErrorCode.BROKER_REQUEST_SEND, "reduce failed: " + Main.describe(e));
    }
  }

  /**
   * The server's part: query context with the table schema, segment pruning,
   * the instance plan, and the serialized DataTable a server would send. An
   * exception while executing becomes an exception in the DataTable, as on a
   * server.
   */
  private byte[] serve(PinotQuery serverQuery, LoadedTable table, long start) throws Exception {
    InstanceResponseBlock response;
    List<IndexSegment> all = table.segments();
    try {
      QueryContext qc = QueryContextConverterUtils.getQueryContext(serverQuery);
      qc.setSchema(table.schema());
      qc.setEndTimeMs(start + TIMEOUT_MS);
      List<IndexSegment> selected = new ArrayList<>(all);
      if (qc.getFilter() != null && qc.getFilter().isConstantFalse()) {
        selected = List.of();
      } else {
        selected = _pruner.prune(selected, qc, new SegmentPrunerStatistics(),
            _executor);
      }
      if (selected.isEmpty()) {
        response = new InstanceResponseBlock(ResultsBlockUtils.buildEmptyQueryResults(qc));
      } else {
        List<SegmentContext> contexts = new ArrayList<>(selected.size());
        for (IndexSegment s : selected) {
          contexts.add(new SegmentContext(s));
        }
        Plan plan = _planMaker.makeInstancePlan(contexts, qc, _executor);
        response = plan.execute();
      }
      long totalDocs = 0;
      for (IndexSegment s : all) {
        totalDocs += s.getSegmentMetadata().getTotalDocs();
      }
      response.addMetadata(DataTable.MetadataKey.TOTAL_DOCS.getName(), Long.toString(totalDocs));
      response.addMetadata(DataTable.MetadataKey.NUM_SEGMENTS_QUERIED.getName(), Integer.toString(all.size()));
      response.addMetadata(DataTable.MetadataKey.NUM_SEGMENTS_PRUNED_BY_SERVER.getName(),
          Integer.toString(all.size() - selected.size()));
    } catch (Exception e) {
      e.printStackTrace(System.err);
      response = new InstanceResponseBlock();
      response.addException(QueryErrorCode.QUERY_EXECUTION, "Query execution error: " + Main.describe(e));
    }
    return response.toDataTable().toBytes();
  }

  @Override
  public void close() {
    for (LoadedTable t : _tables.values()) {
      t.close();
    }
    _tables.clear();
    _executor.shutdownNow();
    _reducer.shutDown();
    FileUtils.deleteQuietly(_workRoot);
  }
}
