#include "advice/ruleset.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

// The rules file's checks: every mistake a person editing it can make gives one error naming the rule and the
// field, and a file with any error gives no rules at all.
class TestRuleSet : public QObject
{
    Q_OBJECT

    static QJsonObject goodRule()
    {
        return QJsonObject{
            {QStringLiteral("id"), QStringLiteral("r1")},
            {QStringLiteral("title"), QStringLiteral("A rule")},
            {QStringLiteral("severity"), QStringLiteral("warning")},
            {QStringLiteral("when"), QJsonObject{{QStringLiteral("metric"), QStringLiteral("x_bytes")},
                                                 {QStringLiteral("op"), QStringLiteral("<")},
                                                 {QStringLiteral("value"), 10}}},
            {QStringLiteral("cites"), QJsonArray{QStringLiteral("x_bytes")}},
            {QStringLiteral("advice"), QStringLiteral("x is {x_bytes}")},
            {QStringLiteral("why"), QStringLiteral("because")},
        };
    }

    // The good rule with fields replaced (a null value removes the field), in a version 1 file.
    static QByteArray fileWith(const QJsonObject &changes)
    {
        QJsonObject rule = goodRule();
        for (auto it = changes.begin(); it != changes.end(); ++it) {
            if (it.value().isNull())
                rule.remove(it.key());
            else
                rule.insert(it.key(), it.value());
        }
        return QJsonDocument(
                   QJsonObject{{QStringLiteral("version"), 1}, {QStringLiteral("rules"), QJsonArray{rule}}})
            .toJson();
    }

    static QJsonObject when(const char *json) { return QJsonDocument::fromJson(json).object(); }

private Q_SLOTS:
    void goodFileLoads()
    {
        RuleSet set;
        QVERIFY2(set.parse(fileWith({}), QStringLiteral("good.json")), qPrintable(set.errors().join(u'\n')));
        QVERIFY(set.ok());
        QCOMPARE(set.rules().size(), 1);
        QCOMPARE(set.rules().first().id, QStringLiteral("r1"));
        QCOMPARE(set.rules().first().severity, Severity::Warning);
        QCOMPARE(set.rules().first().cites, QStringList{QStringLiteral("x_bytes")});
    }

    void malformed_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QString>("error");
        auto row = [](const char *name, const QByteArray &file, const QString &error) {
            QTest::newRow(name) << file << error;
        };
        row("bad JSON", QByteArray("{\"version\": 1,\n \"rules\": [ {\"id\": }"),
            QStringLiteral("bad.json: not valid JSON at line 2, column"));
        row("not an object", QByteArray("[]"), QStringLiteral("bad.json: expected an object"));
        row("no version", QByteArray("{\"rules\": []}"), QStringLiteral("bad.json: missing field 'version'"));
        row("newer version", QByteArray("{\"version\": 2, \"rules\": []}"),
            QStringLiteral("bad.json: version 2, but this workbench reads version 1"));
        row("no rules", QByteArray("{\"version\": 1}"), QStringLiteral("bad.json: missing field 'rules'"));
        row("stray top-level field", QByteArray("{\"version\": 1, \"rule\": [], \"rules\": []}"),
            QStringLiteral("unexpected top-level field 'rule'"));
        row("rule not an object", QByteArray("{\"version\": 1, \"rules\": [3]}"),
            QStringLiteral("bad.json: rule #1: a rule is a JSON object"));
        row("missing field", fileWith({{QStringLiteral("why"), QJsonValue::Null}}),
            QStringLiteral("bad.json: rule 'r1' (#1): missing field 'why'"));
        row("missing id", fileWith({{QStringLiteral("id"), QJsonValue::Null}}),
            QStringLiteral("bad.json: rule #1: missing field 'id'"));
        row("misspelt field", fileWith({{QStringLiteral("sevrity"), QStringLiteral("info")}}),
            QStringLiteral("rule 'r1' (#1): unexpected field 'sevrity'"));
        row("bad id", fileWith({{QStringLiteral("id"), QStringLiteral("Small DMA")}}),
            QStringLiteral("rule 'Small DMA' (#1): id: use lower-case letters"));
        row("empty title", fileWith({{QStringLiteral("title"), QStringLiteral(" ")}}),
            QStringLiteral("rule 'r1' (#1): title: must be a non-empty string"));
        row("unknown severity", fileWith({{QStringLiteral("severity"), QStringLiteral("critical")}}),
            QStringLiteral("rule 'r1' (#1): severity: must be \"info\" or \"warning\", not \"critical\""));
        row("unknown op",
            fileWith({{QStringLiteral("when"), when(R"({"metric": "x_bytes", "op": "=<", "value": 1})")}}),
            QStringLiteral("rule 'r1' (#1): when.op: unknown op '=<'; use one of < <= > >= =="));
        row("unknown op, nested",
            fileWith(
                {{QStringLiteral("when"),
                  when(
                      R"({"all": [{"bound": "memory"}, {"any": [{"metric": "x_bytes", "op": "!=", "value": 1}]}]})")}}),
            QStringLiteral("rule 'r1' (#1): when.all[1].any[0].op: unknown op '!='"));
        row("missing op", fileWith({{QStringLiteral("when"), when(R"({"metric": "x_bytes", "value": 1})")}}),
            QStringLiteral("rule 'r1' (#1): when: missing field 'op'"));
        row("missing threshold",
            fileWith({{QStringLiteral("when"), when(R"({"metric": "x_bytes", "op": "<"})")}}),
            QStringLiteral("rule 'r1' (#1): when: missing field 'value'"));
        row("threshold not a number",
            fileWith({{QStringLiteral("when"), when(R"({"metric": "x_bytes", "op": "<", "value": "big"})")}}),
            QStringLiteral("rule 'r1' (#1): when.value: the threshold must be a number, not 'big'"));
        row("unknown condition type",
            fileWith({{QStringLiteral("when"), when(R"({"metrik": "x_bytes", "op": "<", "value": 1})")}}),
            QStringLiteral("rule 'r1' (#1): when: unknown condition type 'metrik'"));
        row("metric not a name",
            fileWith({{QStringLiteral("when"), when(R"({"metric": 5, "op": "<", "value": 1})")}}),
            QStringLiteral("rule 'r1' (#1): when.metric: must name a metric or derived value"));
        row("two condition types",
            fileWith({{QStringLiteral("when"),
                       when(R"({"metric": "x_bytes", "ratio": ["a", "b"], "op": "<", "value": 1})")}}),
            QStringLiteral("when: a condition has one type, this one has metric and ratio"));
        row("stray condition field",
            fileWith({{QStringLiteral("when"),
                       when(R"({"metric": "x_bytes", "op": "<", "value": 1, "unit": "b"})")}}),
            QStringLiteral("when: unexpected field 'unit'"));
        row("ratio of one",
            fileWith({{QStringLiteral("when"), when(R"({"ratio": ["a"], "op": "<", "value": 1})")}}),
            QStringLiteral("rule 'r1' (#1): when.ratio: must be two value names"));
        row("empty all", fileWith({{QStringLiteral("when"), when(R"({"all": []})")}}),
            QStringLiteral("rule 'r1' (#1): when.all: must be a non-empty list of conditions"));
        row("unknown bound", fileWith({{QStringLiteral("when"), when(R"({"bound": "gpu"})")}}),
            QStringLiteral(
                "rule 'r1' (#1): when.bound: unknown bound 'gpu'; use one of compute memory matmul vector"));
        row("condition not an object", fileWith({{QStringLiteral("when"), QStringLiteral("x_bytes < 10")}}),
            QStringLiteral("rule 'r1' (#1): when: a condition is a JSON object"));
        row("no cites", fileWith({{QStringLiteral("cites"), QJsonArray{}}}),
            QStringLiteral("rule 'r1' (#1): cites: must be a non-empty list"));
        row("unknown unit type",
            fileWith({{QStringLiteral("advice"), QStringLiteral("x is {x_bytes|furlongs}")}}),
            QStringLiteral(
                "rule 'r1' (#1): advice: unknown unit type 'furlongs' in {x_bytes|furlongs}; use one of"));
        row("unclosed field", fileWith({{QStringLiteral("advice"), QStringLiteral("x is {x_bytes")}}),
            QStringLiteral("rule 'r1' (#1): advice: the '{' at character 6 is never closed"));
        row("advice names an uncited value",
            fileWith({{QStringLiteral("advice"), QStringLiteral("y is {y_bytes}")}}),
            QStringLiteral("rule 'r1' (#1): advice: {y_bytes} is neither cited nor tested by the rule"));
        row("advice not text", fileWith({{QStringLiteral("advice"), 3}}),
            QStringLiteral("rule 'r1' (#1): advice: must be a string"));
    }

    void malformed()
    {
        QFETCH(QByteArray, file);
        QFETCH(QString, error);
        RuleSet set;
        QVERIFY(!set.parse(file, QStringLiteral("bad.json")));
        QVERIFY(!set.ok());
        QVERIFY(set.rules().isEmpty());
        QVERIFY(!set.errors().isEmpty());
        const QString all = set.errors().join(u'\n');
        QVERIFY2(all.contains(error), qPrintable(all));
    }

    void oneBadRuleSpoilsTheFile()
    {
        QJsonObject second = goodRule();
        second.insert(QStringLiteral("id"), QStringLiteral("r2"));
        second.insert(QStringLiteral("severity"), QStringLiteral("loud"));
        QJsonObject duplicate = goodRule();
        const QByteArray file =
            QJsonDocument(QJsonObject{{QStringLiteral("version"), 1},
                                      {QStringLiteral("rules"), QJsonArray{goodRule(), second, duplicate}}})
                .toJson();
        RuleSet set;
        QVERIFY(!set.parse(file, QStringLiteral("mixed.json")));
        QVERIFY(set.rules().isEmpty());
        QCOMPARE(set.errors().size(), 2); // every mistake is named, not only the first
        QVERIFY(set.errors().at(0).contains(QStringLiteral("rule 'r2' (#2): severity")));
        QVERIFY(set.errors().at(1).contains(
            QStringLiteral("rule 'r1' (#3): id: another rule already has this id")));
    }

    void missingAndHugeFiles()
    {
        QTemporaryDir dir;
        RuleSet set;
        const QString missing = dir.filePath(QStringLiteral("recommendations.json"));
        QVERIFY(!set.load(missing));
        QVERIFY(set.errors().join(u'\n').contains(missing + QStringLiteral(": cannot read")));
        QFile huge(dir.filePath(QStringLiteral("huge.json")));
        QVERIFY(huge.open(QIODevice::WriteOnly));
        huge.write(QByteArray(1024 * 1024 + 1, ' '));
        huge.close();
        QVERIFY(!set.load(huge.fileName()));
        QVERIFY(set.errors().join(u'\n').contains(QStringLiteral("larger than 1 MB")));
        QVERIFY(!set.parse(QByteArray("\xff\xfe not utf-8"), QStringLiteral("binary.json")));
        QVERIFY(set.errors().join(u'\n').contains(QStringLiteral("binary.json: not valid JSON")));
    }
};

QTEST_GUILESS_MAIN(TestRuleSet)
#include "tst_ruleset.moc"
