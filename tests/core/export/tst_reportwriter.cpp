#include "exportsession.h"

#include "export/reportwriter.h"
#include "llm/llmcallrecord.h"
#include "store/sessionstore.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

class TestReportWriter : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<SessionStore> m_store;
    ExportSession m_session;
    std::unique_ptr<ReportWriter> m_report;

    // The CSV as Python's csv module reads it: an independent parser, so quoting mistakes cannot cancel out.
    QList<QStringList> parsedByPython(const QByteArray &csv)
    {
        const QString path = m_dir.filePath(QStringLiteral("candidates.csv"));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(csv) != csv.size())
            return {};
        f.close();
        QProcess python;
        python.start(QStringLiteral("/usr/bin/python3"),
                     {QStringLiteral("-c"),
                      QStringLiteral("import csv, json, sys\n"
                                     "with open(sys.argv[1], newline='', encoding='utf-8') as f:\n"
                                     "    print(json.dumps(list(csv.reader(f, strict=True))))\n"),
                      path});
        if (!python.waitForFinished(60000) || python.exitCode() != 0) {
            qWarning() << python.readAllStandardError();
            return {};
        }
        QList<QStringList> rows;
        for (const QJsonValue &row : QJsonDocument::fromJson(python.readAllStandardOutput()).array()) {
            QStringList fields;
            for (const QJsonValue &field : row.toArray())
                fields.append(field.toString());
            rows.append(fields);
        }
        return rows;
    }

    // Cells of a Markdown table row, split at pipes that are not backslash-escaped.
    static QStringList cells(const QString &line)
    {
        QStringList result;
        QString current;
        for (qsizetype i = 1; i < line.size(); ++i) {
            if (line.at(i) == u'\\' && i + 1 < line.size()) {
                current += line.at(i + 1);
                ++i;
            } else if (line.at(i) == u'|') {
                result.append(current.trimmed());
                current.clear();
            } else {
                current += line.at(i);
            }
        }
        return result;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_store = std::make_unique<SessionStore>(m_dir.filePath(QStringLiteral("workspace.sqlite")));
        QVERIFY2(m_store->open(), qPrintable(m_store->lastError()));
        QString error;
        QVERIFY2(m_session.create(*m_store, error), qPrintable(error));
        m_report = std::make_unique<ReportWriter>(*m_store);
        QVERIFY2(m_report->load(m_session.sessionId.left(6),
                                QDateTime(QDate(2025, 3, 4), QTime(5, 6, 7), Qt::UTC)),
                 qPrintable(m_report->lastError()));
    }

    void csvFieldQuoting()
    {
        QCOMPARE(ReportWriter::csvField(QStringLiteral("plain text")), QStringLiteral("plain text"));
        QCOMPARE(ReportWriter::csvField(QStringLiteral("a,b")), QStringLiteral("\"a,b\""));
        QCOMPARE(ReportWriter::csvField(QStringLiteral("say \"hi\"")), QStringLiteral("\"say \"\"hi\"\"\""));
        QCOMPARE(ReportWriter::csvField(QStringLiteral("two\nlines")), QStringLiteral("\"two\nlines\""));
        QCOMPARE(ReportWriter::csvField(QString()), QString());
    }

    void csvReadsBackFieldForField()
    {
        const QList<QStringList> rows = parsedByPython(m_report->csv());
        QCOMPARE(rows.size(), 1 + 9); // header and every candidate, evaluated or not
        const QStringList header = rows.first();
        QCOMPARE(header.size(), 24);
        for (const QStringList &row : rows)
            QCOMPARE(row.size(), header.size());
        const auto rowOf = [&](const QString &id) {
            for (const QStringList &row : rows)
                if (row.first() == id) {
                    QVariantMap byColumn;
                    for (qsizetype i = 0; i < header.size(); ++i)
                        byColumn.insert(header.at(i), row.at(i));
                    return byColumn;
                }
            return QVariantMap();
        };

        const QVariantMap base = rowOf(m_session.baselineId);
        QCOMPARE(base.value(QStringLiteral("origin")).toString(), QStringLiteral("baseline"));
        QCOMPARE(base.value(QStringLiteral("plan_index")).toString(), QString()); // not applicable, not -1
        QCOMPARE(base.value(QStringLiteral("speedup_vs_baseline")).toString(), QStringLiteral("1"));

        // The error's first line only, with its comma and quotes intact.
        const QVariantMap wrong = rowOf(m_session.c1b);
        QCOMPARE(wrong.value(QStringLiteral("error")).toString(),
                 QStringLiteral("mismatch, got \"nan\" at [0, 3]"));
        QCOMPARE(wrong.value(QStringLiteral("status")).toString(), QStringLiteral("incorrect"));
        QCOMPARE(wrong.value(QStringLiteral("correct")).toString(), QStringLiteral("false"));
        QCOMPARE(wrong.value(QStringLiteral("l2_rel_err")).toString(), QStringLiteral("0.5"));
        QCOMPARE(wrong.value(QStringLiteral("speedup_vs_baseline")).toString(), QString());
        QCOMPARE(wrong.value(QStringLiteral("plan_title")).toString(), ExportSession::planTitle0());

        // A line break inside a field survives; a formula-looking error is defused for spreadsheets.
        const QVariantMap broken = rowOf(m_session.c1c);
        QCOMPARE(broken.value(QStringLiteral("plan_title")).toString(), ExportSession::planTitle1());
        QCOMPARE(broken.value(QStringLiteral("error")).toString(),
                 QStringLiteral("'=cmd|' /C calc'!A0 line 9"));

        const QVariantMap best = rowOf(m_session.c2a);
        QCOMPARE(best.value(QStringLiteral("origin")).toString(), QStringLiteral("fixer"));
        QCOMPARE(best.value(QStringLiteral("parent_id")).toString(), m_session.c2x);
        QCOMPARE(best.value(QStringLiteral("fix_round")).toString(), QStringLiteral("1"));
        QCOMPARE(best.value(QStringLiteral("latency_mean_ms")).toDouble(), 1.6);
        QCOMPARE(best.value(QStringLiteral("latency_min_ms")).toDouble(), 1.55);
        QCOMPARE(best.value(QStringLiteral("percent_of_peak")).toString(), QStringLiteral("25"));
        QCOMPARE(best.value(QStringLiteral("speedup_vs_baseline")).toString(), QStringLiteral("2.5"));
        QCOMPARE(best.value(QStringLiteral("bound")).toString(), QStringLiteral("memory"));
        QCOMPARE(best.value(QStringLiteral("source_hash")).toString(),
                 m_store->candidate(m_session.c2a)->sourceHash);
        // Where the numbers come from (issue 34), read back from the workspace's columns
        QCOMPARE(best.value(QStringLiteral("provenance")).toString(), QStringLiteral("nkisim"));
        QCOMPARE(best.value(QStringLiteral("sdk")).toString(), QStringLiteral("nkisim"));
        QCOMPARE(best.value(QStringLiteral("host")).toString(), QStringLiteral("local/0"));
        // a failure's runner said nothing of its backend: unknown, not guessed
        QCOMPARE(wrong.value(QStringLiteral("provenance")).toString(), QString());

        const QVariantMap pending = rowOf(m_session.c1e);
        QCOMPARE(pending.value(QStringLiteral("status")).toString(), QStringLiteral("pending"));
        QCOMPARE(pending.value(QStringLiteral("correct")).toString(), QString());
        QCOMPARE(pending.value(QStringLiteral("latency_mean_ms")).toString(), QString());
    }

    void jsonHasTheSessionButNotTheTranscripts()
    {
        const QByteArray bytes = m_report->json();
        QJsonParseError error;
        const QJsonObject o = QJsonDocument::fromJson(bytes, &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QVERIFY(!bytes.contains(ExportSession::transcriptMarker().toUtf8()));

        QCOMPARE(o.value(QStringLiteral("format")).toString(), QStringLiteral("accelopt-session-report"));
        QCOMPARE(o.value(QStringLiteral("generated")).toString(), QStringLiteral("2025-03-04T05:06:07Z"));
        const QJsonObject session = o.value(QStringLiteral("session")).toObject();
        QCOMPARE(session.value(QStringLiteral("id")).toString(), m_session.sessionId);
        QCOMPARE(session.value(QStringLiteral("status")).toString(), QStringLiteral("finished"));
        QCOMPARE(o.value(QStringLiteral("config")).toObject().value(QStringLiteral("beam_width")).toInt(), 2);

        const QJsonObject cost = o.value(QStringLiteral("cost")).toObject();
        QCOMPARE(cost.value(QStringLiteral("calls")).toInt(), 6);
        QCOMPARE(cost.value(QStringLiteral("failed_calls")).toInt(), 1);
        QCOMPARE(cost.value(QStringLiteral("prompt_tokens")).toInteger(), 3800);
        QCOMPARE(cost.value(QStringLiteral("completion_tokens")).toInteger(), 1150);
        QCOMPARE(cost.value(QStringLiteral("calls_without_cost")).toInt(), 2);
        QVERIFY(qFuzzyCompare(cost.value(QStringLiteral("cost_usd")).toDouble(), 0.38));
        const QJsonObject byRole = cost.value(QStringLiteral("cost_usd_by_role")).toObject();
        QVERIFY(qFuzzyCompare(byRole.value(QStringLiteral("planner")).toDouble(), 0.15));
        QVERIFY(qFuzzyCompare(byRole.value(QStringLiteral("executor")).toDouble(), 0.20));
        // the summarizer's only call had no price: its cost is unknown, not 0
        QVERIFY(byRole.value(QStringLiteral("summarizer")).isNull());
        const QJsonObject unpriced = cost.value(QStringLiteral("calls_without_cost_by_role")).toObject();
        QCOMPARE(unpriced, (QJsonObject{{QStringLiteral("executor"), 1}, {QStringLiteral("summarizer"), 1}}));

        const QJsonArray iterations = o.value(QStringLiteral("iterations")).toArray();
        QCOMPARE(iterations.size(), 3);
        QCOMPARE(iterations.at(1).toObject().value(QStringLiteral("candidates")).toInt(), 5);
        QCOMPARE(iterations.at(1).toObject().value(QStringLiteral("correct")).toInt(), 2);
        const QJsonObject byStatus = o.value(QStringLiteral("candidates_by_status")).toObject();
        QCOMPARE(byStatus.value(QStringLiteral("ok")).toInt(), 4);
        QCOMPARE(byStatus.value(QStringLiteral("incorrect")).toInt(), 2);
        QCOMPARE(byStatus.value(QStringLiteral("pending")).toInt(), 1);

        const QJsonObject best = o.value(QStringLiteral("best")).toObject();
        QCOMPARE(best.value(QStringLiteral("candidate")).toString(), m_session.c2a);
        QCOMPARE(best.value(QStringLiteral("speedup_vs_baseline")).toDouble(), 2.5);
        const QJsonArray lineage = best.value(QStringLiteral("lineage")).toArray();
        QCOMPARE(lineage.size(), 4);
        QCOMPARE(lineage.first().toString(), m_session.baselineId);
        QCOMPARE(lineage.last().toString(), m_session.c2a);

        const QJsonArray candidates = o.value(QStringLiteral("candidates")).toArray();
        QCOMPARE(candidates.size(), 9);
        int evaluated = 0;
        for (const QJsonValue &v : candidates) {
            const QJsonObject c = v.toObject();
            if (!c.value(QStringLiteral("evaluation")).isNull())
                ++evaluated;
            if (c.value(QStringLiteral("id")).toString() == m_session.c2a) {
                QCOMPARE(c.value(QStringLiteral("source")).toString(), m_session.bestSource);
                const QJsonObject plan = c.value(QStringLiteral("plan")).toObject();
                QCOMPARE(plan.value(QStringLiteral("title")).toString(), ExportSession::planTitle2());
                QCOMPARE(plan.value(QStringLiteral("steps")).toArray().size(), 2);
                const QJsonObject e = c.value(QStringLiteral("evaluation")).toObject();
                QCOMPARE(
                    e.value(QStringLiteral("latency_ms")).toObject().value(QStringLiteral("mean")).toDouble(),
                    1.6);
                QCOMPARE(e.value(QStringLiteral("roofline"))
                             .toObject()
                             .value(QStringLiteral("percent_of_peak"))
                             .toDouble(),
                         25.0);
                QCOMPARE(e.value(QStringLiteral("metrics"))
                             .toObject()
                             .value(QStringLiteral("hbm_read_bytes"))
                             .toInt(),
                         65536);
            }
            if (c.value(QStringLiteral("id")).toString() == m_session.c1b)
                QCOMPARE(c.value(QStringLiteral("evaluation"))
                             .toObject()
                             .value(QStringLiteral("error"))
                             .toString(),
                         ExportSession::c1bError()); // JSON keeps the whole message
        }
        QCOMPARE(evaluated, 8);
    }

    void markdownTablesAndLineage()
    {
        const QString md = QString::fromUtf8(m_report->markdown());
        const QStringList lines = md.split(u'\n');

        // Every row of every table has as many cells as its header: no title or error breaks a row.
        qsizetype expected = -1;
        int tableRows = 0;
        for (const QString &line : lines) {
            if (!line.startsWith(u'|')) {
                expected = -1;
                continue;
            }
            const qsizetype n = cells(line).size();
            if (expected < 0)
                expected = n;
            QVERIFY2(n == expected, qPrintable(line));
            ++tableRows;
        }
        QVERIFY(tableRows > 25);

        QVERIFY(md.startsWith(QStringLiteral("# AccelOpt session report: silu\n")));
        QVERIFY(md.contains(QStringLiteral("| Status | finished at iteration 2, after step 'select' |\n")));
        QVERIFY(md.contains(QStringLiteral("| beam_width | 2 |\n")));
        QVERIFY(md.contains(QStringLiteral("| budget_usd | 5 |\n")));

        const QString c = QStringLiteral("`%1`");
        QVERIFY(md.contains(
            QStringLiteral("| 0 | 1 | 1 | 4 | 10.0% | %1 |\n").arg(c.arg(m_session.baselineId.left(8)))));
        QVERIFY(md.contains(
            QStringLiteral("| 1 | 5 | 2 | 2 | 20.0% | %1 |\n").arg(c.arg(m_session.c1a.left(8)))));
        QVERIFY(md.contains(
            QStringLiteral("| 2 | 3 | 1 | 1.6 | 25.0% | %1 |\n").arg(c.arg(m_session.c2a.left(8)))));

        // The lineage: each step's plan, its speedup over the baseline and over the step before; the broken
        // kernel the fixer repaired has no timing, so the fixed one's gain is measured across it.
        QVERIFY(md.contains(QStringLiteral("| 0 | %1 | 0 | baseline | — | 4 | 1.00x | — |\n")
                                .arg(c.arg(m_session.baselineId.left(8)))));
        QVERIFY(md.contains(
            QStringLiteral(
                "| 1 | %1 | 1 | executor | Fuse loads, then \"stream\" them | 2 | 2.00x | 2.00x |\n")
                .arg(c.arg(m_session.c1a.left(8)))));
        QVERIFY(md.contains(
            QStringLiteral("| 2 | %1 | 2 | executor | Double-buffer DMA \\| \\<overlap\\> | — | — | — |\n")
                .arg(c.arg(m_session.c2x.left(8)))));
        QVERIFY(md.contains(
            QStringLiteral("| 3 | %1 | 2 | fixer round 1 | Double-buffer DMA \\| \\<overlap\\> | 1.6 | "
                           "2.50x | 1.25x |\n")
                .arg(c.arg(m_session.c2a.left(8)))));

        QVERIFY(md.contains(QStringLiteral("| planner | 0.1500 |\n")));
        QVERIFY(md.contains(QStringLiteral("| executor | 0.2000 (+1 call without a price) |\n")));
        QVERIFY(md.contains(QStringLiteral("| summarizer | — |\n")));
        QVERIFY(md.contains(QStringLiteral("| **Total** | **0.3800** |\n")));
        QVERIFY(md.contains(
            QStringLiteral("6 LLM calls (1 failed), 3800 prompt + 1150 completion tokens. Not included: "
                           "2 calls without a known price, 2 without token counts.")));
        QVERIFY(md.contains(QStringLiteral("| compile_error | 1 |\n")));
        QVERIFY(md.contains(QStringLiteral("| timeout | 1 |\n")));
        QVERIFY(md.contains(QStringLiteral("| pending | 1 |\n")));
        QVERIFY(md.contains(QStringLiteral("| **All** | **9** |\n")));

        // The best kernel's source contains ``` itself, so its fence is longer and the block holds all of it.
        const QString block =
            QStringLiteral("````python\n") + m_session.bestSource + QStringLiteral("````\n");
        QVERIFY(md.contains(block));
        QVERIFY(md.endsWith(block));
    }

    void unknownSession()
    {
        ReportWriter report(*m_store);
        QVERIFY(!report.load(QStringLiteral("zzzz")));
        QVERIFY2(report.lastError().contains(QStringLiteral("no session 'zzzz'")),
                 qPrintable(report.lastError()));
    }

    void sessionWithoutACorrectKernelStillReports()
    {
        const QString hopeless = ExportSession::createHopeless(*m_store);
        ReportWriter report(*m_store);
        QVERIFY(report.load(hopeless));
        const QString md = QString::fromUtf8(report.markdown());
        QVERIFY(md.contains(QStringLiteral("- Best: none yet: no candidate has passed correctness")));
        QVERIFY(md.contains(QStringLiteral("No LLM calls recorded.")));
        QVERIFY(QJsonDocument::fromJson(report.json()).object().value(QStringLiteral("best")).isNull());
        QCOMPARE(parsedByPython(report.csv()).size(), 2);
    }

    void aSessionOfUnpricedCallsHasAnUnknownCostNotZero()
    {
        // The model stand-in and self-hosted models have no price: their cost is unknown, not $0.0000.
        const QString id = ExportSession::createHopeless(*m_store);
        LlmCallRecord r;
        r.role = QStringLiteral("planner");
        r.model = QStringLiteral("self-hosted");
        r.reply = QStringLiteral("a plan");
        r.usage = TokenUsage{100, 20};
        QVERIFY(m_store->recordLlmCall(id, r));
        ReportWriter report(*m_store);
        QVERIFY(report.load(id));
        const QString md = QString::fromUtf8(report.markdown());
        QVERIFY2(md.contains(QStringLiteral("| **Total** | **unknown** |\n")), qPrintable(md));
        QVERIFY(md.contains(QStringLiteral("| planner | — |\n")));
        const QJsonObject cost = QJsonDocument::fromJson(report.json()).object().value(QStringLiteral("cost")).toObject();
        QVERIFY(cost.value(QStringLiteral("cost_usd")).isNull());
        QCOMPARE(cost.value(QStringLiteral("calls_without_cost")).toInt(), 1);
    }
};

QTEST_GUILESS_MAIN(TestReportWriter)
#include "tst_reportwriter.moc"
