package dev.floe.harness;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import org.apache.pinot.segment.spi.ColumnMetadata;
import org.apache.pinot.segment.spi.ImmutableSegment;
import org.apache.pinot.segment.spi.datasource.DataSource;
import org.apache.pinot.segment.spi.index.reader.Dictionary;
import org.apache.pinot.segment.spi.index.reader.ForwardIndexReader;
import org.apache.pinot.segment.spi.index.reader.ForwardIndexReaderContext;
import org.apache.pinot.segment.spi.index.reader.InvertedIndexReader;
import org.apache.pinot.segment.spi.index.reader.NullValueVectorReader;
import org.apache.pinot.spi.utils.Pairs;
import org.roaringbitmap.buffer.ImmutableRoaringBitmap;
import org.roaringbitmap.buffer.MutableRoaringBitmap;

/**
 * Exercises the loaded indexes of every column and returns the inconsistencies found:
 * dictionary order and lookups, forward-index dictIds, sortedness, MV counts, inverted
 * index against the forward index, and the null value vector range.
 */
final class IndexChecker {
  private static final int MAX_ERRORS_PER_COLUMN = 20;

  private final ImmutableSegment _segment;

  IndexChecker(ImmutableSegment segment) {
    _segment = segment;
  }

  List<String> check() {
    List<String> errors = new ArrayList<>();
    Map<String, ColumnMetadata> cols = ReadCommand.physicalColumns(_segment);
    for (Map.Entry<String, ColumnMetadata> e : cols.entrySet()) {
      List<String> colErrors = new ArrayList<>();
      try {
        checkColumn(e.getValue(), _segment.getDataSource(e.getKey()), colErrors);
      } catch (Exception | AssertionError ex) {
        ex.printStackTrace(System.err);
        colErrors.add("check indexes: " + Main.describe(ex));
      }
      int n = 0;
      for (String msg : colErrors) {
        if (n++ == MAX_ERRORS_PER_COLUMN) {
          errors.add("column " + e.getKey() + ": " + (colErrors.size() - n + 1) + " more errors");
          break;
        }
        errors.add("column " + e.getKey() + ": " + msg);
      }
    }
    return errors;
  }

  private void checkColumn(ColumnMetadata cm, DataSource ds, List<String> errors) throws Exception {
    checkNullVector(cm, ds.getNullValueVector(), errors);
    Dictionary dict = ds.getDictionary();
    if (cm.hasDictionary() != (dict != null)) {
      errors.add("metadata hasDictionary=" + cm.hasDictionary() + " but loaded dictionary is "
          + (dict == null ? "absent" : "present"));
    }
    if (dict == null) {
      return;
    }
    checkDictionary(cm, dict, errors);
    ForwardIndexReader<?> fwd = ds.getForwardIndex();
    if (fwd == null) {
      errors.add("no forward index");
      return;
    }
    InvertedIndexReader<?> inv = ds.getInvertedIndex();
    MutableRoaringBitmap[] expected = scanForward(cm, dict, fwd, inv != null, errors);
    if (inv != null && expected != null) {
      checkInverted(inv, expected, errors);
    }
  }

  private static void checkNullVector(ColumnMetadata cm, NullValueVectorReader nv, List<String> errors) {
    if (nv == null) {
      return;
    }
    ImmutableRoaringBitmap bm = nv.getNullBitmap();
    if (!bm.isEmpty() && bm.last() >= cm.getTotalDocs()) {
      errors.add("null value vector has docId " + bm.last() + " >= totalDocs " + cm.getTotalDocs());
    }
  }

  private static void checkDictionary(ColumnMetadata cm, Dictionary dict, List<String> errors) {
    int len = dict.length();
    if (len != cm.getCardinality()) {
      errors.add("dictionary length " + len + " != cardinality " + cm.getCardinality());
    }
    for (int id = 0; id < len; id++) {
      String s = dict.getStringValue(id);
      int found = dict.indexOf(s);
      if (found != id) {
        errors.add("dictionary lookup of entry " + id + " (" + s + ") returned " + found);
      }
      if (id > 0 && dict.compare(id - 1, id) >= 0) {
        errors.add("dictionary not strictly ascending at entry " + id + " (" + dict.getStringValue(id - 1)
            + " then " + s + ")");
      }
    }
    if (len > 0 && !cm.isMinMaxValueInvalid()) {
      compareMinMax("minValue", cm.getMinValue(), dict.getMinVal(), errors);
      compareMinMax("maxValue", cm.getMaxValue(), dict.getMaxVal(), errors);
    }
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  private static void compareMinMax(String what, Comparable meta, Comparable fromDict, List<String> errors) {
    if (meta == null || fromDict == null) {
      return;
    }
    boolean equal = meta.getClass() == fromDict.getClass() ? meta.compareTo(fromDict) == 0
        : meta.toString().equals(fromDict.toString());
    if (!equal) {
      errors.add("metadata " + what + " " + meta + " differs from dictionary's " + fromDict);
    }
  }

  /**
   * Reads every dictId. With wantDocs, returns per-dictId doc bitmaps for the inverted-index check
   * (null on failure); without, returns null and only tracks which dictIds are used, which keeps
   * memory small for high-cardinality columns.
   */
  @SuppressWarnings({"rawtypes", "unchecked"})
  private static MutableRoaringBitmap[] scanForward(ColumnMetadata cm, Dictionary dict, ForwardIndexReader fwd,
      boolean wantDocs, List<String> errors) throws Exception {
    int card = dict.length();
    MutableRoaringBitmap[] docsByDictId = wantDocs ? new MutableRoaringBitmap[card] : null;
    for (int i = 0; wantDocs && i < card; i++) {
      docsByDictId[i] = new MutableRoaringBitmap();
    }
    BitSet used = new BitSet(card);
    ForwardIndexReaderContext ctx = fwd.createContext();
    long entries = 0;
    int prev = -1;
    int maxMv = 0;
    try {
      for (int doc = 0; doc < cm.getTotalDocs(); doc++) {
        int[] ids = cm.isSingleValue() ? new int[]{fwd.getDictId(doc, ctx)} : fwd.getDictIdMV(doc, ctx);
        if (!cm.isSingleValue() && ids.length == 0) {
          errors.add("doc " + doc + " has an empty multi-value row");
        }
        maxMv = Math.max(maxMv, ids.length);
        entries += ids.length;
        for (int id : ids) {
          if (id < 0 || id >= card) {
            errors.add("doc " + doc + " has dictId " + id + " outside [0," + card + ")");
            return null;
          }
          dict.get(id);
          used.set(id);
          if (wantDocs) {
            docsByDictId[id].add(doc);
          }
        }
        if (cm.isSorted() && cm.isSingleValue() && ids[0] < prev) {
          errors.add("column marked sorted but doc " + doc + " has dictId " + ids[0] + " < previous " + prev);
        }
        if (ids.length > 0) {
          prev = ids[0];
        }
      }
    } finally {
      if (ctx instanceof Closeable) {
        ((Closeable) ctx).close();
      }
    }
    checkCounts(cm, entries, maxMv, used, card, errors);
    return docsByDictId;
  }

  private static void checkCounts(ColumnMetadata cm, long entries, int maxMv, BitSet used, int card,
      List<String> errors) {
    if (!cm.isSingleValue()) {
      if (entries != cm.getTotalNumberOfEntries()) {
        errors.add("forward index holds " + entries + " values but totalNumberOfEntries is "
            + cm.getTotalNumberOfEntries());
      }
      if (maxMv != cm.getMaxNumberOfMultiValues()) {
        errors.add("longest multi-value row has " + maxMv + " values but maxNumberOfMultiValues is "
            + cm.getMaxNumberOfMultiValues());
      }
    }
    for (int id = used.nextClearBit(0); id < card; id = used.nextClearBit(id + 1)) {
      errors.add("dictionary entry " + id + " is used by no document");
    }
  }

  private static void checkInverted(InvertedIndexReader<?> inv, MutableRoaringBitmap[] expected,
      List<String> errors) {
    for (int id = 0; id < expected.length; id++) {
      Object docs = inv.getDocIds(id);
      if (docs instanceof ImmutableRoaringBitmap) {
        ImmutableRoaringBitmap got = (ImmutableRoaringBitmap) docs;
        if (!got.equals(expected[id].toImmutableRoaringBitmap())) {
          errors.add("inverted index for dictId " + id + " has docs " + got + " but forward index has "
              + expected[id]);
        }
      } else if (docs instanceof Pairs.IntPair) {
        Pairs.IntPair p = (Pairs.IntPair) docs;
        MutableRoaringBitmap want = expected[id];
        boolean ok = !want.isEmpty() && p.getLeft() == want.first() && p.getRight() == want.last()
            && want.getCardinality() == p.getRight() - p.getLeft() + 1;
        if (!ok) {
          errors.add("sorted index range for dictId " + id + " is [" + p.getLeft() + "," + p.getRight()
              + "] but forward index has " + want);
        }
      } else {
        errors.add("inverted index returned unexpected " + (docs == null ? "null" : docs.getClass().getName()));
        return;
      }
    }
  }
}
