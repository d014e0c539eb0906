#include "diff/kerneldiff.h"
#include "diff/metricdeltas.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

// KernelDiff on cases kept as files (tests/core/diff/cases/<case>/left.py, right.py, expected.json and, for the
// small ones, expected.diff). Besides the expectations, every case checks what any correct diff must satisfy:
// the rows give back both texts in order, the unified diff applied to the left text gives the right one, and
// every marked character span lies inside its line. ACCELOPT_WRITE_DIFF_CASES=1 rewrites the expectations from
// the current code, for a person to read and commit.
class TestKernelDiff : public QObject
{
    Q_OBJECT

    static QString casesDir() { return QStringLiteral(ACCELOPT_SOURCE_DIR "/tests/core/diff/cases"); }
    static QByteArray read(const QString &path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }
    static void write(const QString &path, const QByteArray &bytes)
    {
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(path));
        f.write(bytes);
    }

    // A minimal `patch` for our own unified output: enough to prove the hunks say what changed.
    static QStringList applyUnified(const QStringList &left, const QString &diff, QString &error)
    {
        QStringList out;
        int next = 0; // next left line (0-based) not yet copied
        const QStringList lines = diff.split(u'\n');
        for (int i = 2; i < lines.size(); ++i) {
            const QString &line = lines.at(i);
            if (line.startsWith(QStringLiteral("@@"))) {
                const QString range = line.section(u' ', 1, 1).mid(1); // a,b
                const int start = range.section(u',', 0, 0).toInt();
                const int count = range.contains(u',') ? range.section(u',', 1, 1).toInt() : 1;
                const int first = count == 0 ? start : start - 1;
                while (next < first)
                    out << left.at(next++);
                continue;
            }
            if (line.startsWith(u' ')) {
                if (left.value(next) != line.mid(1)) {
                    error = QStringLiteral("context line %1 does not match").arg(next + 1);
                    return {};
                }
                out << left.at(next++);
            } else if (line.startsWith(u'-')) {
                if (left.value(next) != line.mid(1)) {
                    error = QStringLiteral("removed line %1 does not match").arg(next + 1);
                    return {};
                }
                ++next;
            } else if (line.startsWith(u'+')) {
                out << line.mid(1);
            }
        }
        while (next < left.size())
            out << left.at(next++);
        return out;
    }

private Q_SLOTS:
    void cases_data()
    {
        QTest::addColumn<QString>("dir");
        const QStringList names = QDir(casesDir()).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        QVERIFY(names.size() >= 9);
        for (const QString &name : names)
            QTest::newRow(qPrintable(name)) << QDir(casesDir()).filePath(name);
    }

    void cases()
    {
        QFETCH(QString, dir);
        const QDir d(dir);
        const QString left = QString::fromUtf8(read(d.filePath(QStringLiteral("left.py"))));
        const QString right = QString::fromUtf8(read(d.filePath(QStringLiteral("right.py"))));
        const KernelDiff::Result r = KernelDiff::compute(left, right);
        const QString unified = r.unified(QStringLiteral("left.py"), QStringLiteral("right.py"));
        QJsonObject stats = r.toJson();
        stats.remove(QStringLiteral("hunks"));
        stats.insert(QStringLiteral("changes"), int(r.changes.size()));
        stats.insert(QStringLiteral("hunks"), int(r.hunks().size()));
        QJsonArray spans;
        for (int i = 0; i < r.rows.size(); ++i)
            for (const auto &[side, list] : {std::pair{QStringLiteral("left"), r.rows.at(i).leftSpans},
                                             std::pair{QStringLiteral("right"), r.rows.at(i).rightSpans}})
                for (const KernelDiff::Span &s : list)
                    spans.append(QJsonArray{i, side, s.start, s.length});
        if (spans.size() <= 40)
            stats.insert(QStringLiteral("spans"), spans);

        if (qEnvironmentVariableIntValue("ACCELOPT_WRITE_DIFF_CASES") == 1) {
            write(d.filePath(QStringLiteral("expected.json")), QJsonDocument(stats).toJson());
            if (r.leftLines.size() < 200)
                write(d.filePath(QStringLiteral("expected.diff")), unified.toUtf8());
        }
        const QJsonObject expected = QJsonDocument::fromJson(read(d.filePath(QStringLiteral("expected.json")))).object();
        QVERIFY2(!expected.isEmpty(), "no expected.json");
        QCOMPARE(stats, expected);
        if (QFile::exists(d.filePath(QStringLiteral("expected.diff"))))
            QCOMPARE(unified, QString::fromUtf8(read(d.filePath(QStringLiteral("expected.diff")))));

        // The rows give back both texts; spans lie inside their lines and mark text that differs.
        QStringList fromLeft, fromRight;
        for (const KernelDiff::Row &row : r.rows) {
            if (row.left >= 0)
                fromLeft << r.leftLines.at(row.left);
            if (row.right >= 0)
                fromRight << r.rightLines.at(row.right);
            QCOMPARE(row.kind == KernelDiff::Kind::Same, row.left >= 0 && row.right >= 0 &&
                                                             r.leftLines.at(row.left) == r.rightLines.at(row.right));
            for (const KernelDiff::Span &s : row.leftSpans)
                QVERIFY(s.start >= 0 && s.length > 0 && s.start + s.length <= r.leftLines.at(row.left).size());
            for (const KernelDiff::Span &s : row.rightSpans)
                QVERIFY(s.start >= 0 && s.length > 0 && s.start + s.length <= r.rightLines.at(row.right).size());
            if (row.kind == KernelDiff::Kind::Changed)
                QVERIFY(!row.leftSpans.isEmpty() || !row.rightSpans.isEmpty());
        }
        QCOMPARE(fromLeft, r.leftLines);
        QCOMPARE(fromRight, r.rightLines);
        QCOMPARE(KernelDiff::lines(left), r.leftLines);

        // The unified diff takes the left kernel to the right one, at every context size.
        for (int context : {0, 1, 3, 10}) {
            QString error;
            const QStringList patched =
                applyUnified(r.leftLines, r.unified(QStringLiteral("a"), QStringLiteral("b"), context), error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            QCOMPARE(patched, r.rightLines);
        }
        // Next/previous change visits each run of changes once, in order.
        for (int k = 1; k < r.changes.size(); ++k)
            QVERIFY(r.changes.at(k) > r.changes.at(k - 1));
        for (int start : r.changes)
            QVERIFY(r.rows.at(start).kind != KernelDiff::Kind::Same &&
                    (start == 0 || r.rows.at(start - 1).kind == KernelDiff::Kind::Same));
    }

    void metricDeltasSayBetterOrWorse()
    {
        Evaluation slow, fast;
        slow.latencyMeanMs = 2.0;
        fast.latencyMeanMs = 1.0;
        slow.percentOfPeak = 20;
        fast.percentOfPeak = 40;
        slow.bound = fast.bound = QStringLiteral("memory");
        slow.metrics = QJsonObject{{QStringLiteral("hbm_read_bytes"), 4096},
                                   {QStringLiteral("dma_transfer_average_bytes"), 512},
                                   {QStringLiteral("vector_engine_active_time_percent"), 0.5}};
        fast.metrics = QJsonObject{{QStringLiteral("hbm_read_bytes"), 4096},
                                   {QStringLiteral("dma_transfer_average_bytes"), 16384},
                                   {QStringLiteral("vector_engine_active_time_percent"), 0.25}};
        const QList<MetricDelta> d = MetricDeltas::compute(slow, fast);
        auto find = [&d](const QString &key) {
            for (const MetricDelta &m : d)
                if (m.key == key)
                    return m;
            return MetricDelta{};
        };
        QCOMPARE(find(QStringLiteral("latency_ms")).verdict(), MetricDelta::Verdict::Better);
        QCOMPARE(*find(QStringLiteral("latency_ms")).ratio(), 0.5);
        QCOMPARE(find(QStringLiteral("percent_of_peak")).verdict(), MetricDelta::Verdict::Better);
        QCOMPARE(find(QStringLiteral("hbm_read_bytes")).verdict(), MetricDelta::Verdict::Same);
        QCOMPARE(find(QStringLiteral("dma_transfer_average_bytes")).verdict(), MetricDelta::Verdict::Better);
        QCOMPARE(find(QStringLiteral("vector_engine_active_time_percent")).right, 25.0);
        QCOMPARE(find(QStringLiteral("vector_engine_active_time_percent")).verdict(), MetricDelta::Verdict::Changed);
        QCOMPARE(find(QStringLiteral("bound")).verdict(), MetricDelta::Verdict::Same);
        fast.bound = QStringLiteral("compute");
        const MetricDelta bound = MetricDeltas::compute(slow, fast).at(3);
        QCOMPARE(bound.key, QStringLiteral("bound"));
        QCOMPARE(bound.verdict(), MetricDelta::Verdict::Changed);
        QCOMPARE(find(QStringLiteral("psum_read_bytes")).verdict(), MetricDelta::Verdict::Unknown); // not reported
        QCOMPARE(MetricDeltas::format(find(QStringLiteral("dma_transfer_average_bytes")), 16384.0),
                 QStringLiteral("16.00 KiB"));
        // Slower is worse, both ways round.
        QCOMPARE(MetricDeltas::compute(fast, slow).first().verdict(), MetricDelta::Verdict::Worse);
        const QJsonArray json = MetricDeltas::toJson(d);
        QCOMPARE(json.first().toObject().value(QStringLiteral("ratio")).toDouble(), 0.5);
        QCOMPARE(json.first().toObject().value(QStringLiteral("verdict")).toString(), QStringLiteral("better"));
    }
};

QTEST_GUILESS_MAIN(TestKernelDiff)
#include "tst_kerneldiff.moc"
