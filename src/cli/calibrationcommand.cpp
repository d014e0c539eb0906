#include "calibrationcommand.h"

#include "model/calibration.h"
#include "store/calibrationquery.h"
#include "store/sessionstore.h"

#include "subcommandparser.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTextStream>

namespace {
QString percent(double fraction)
{
    return QStringLiteral("%1%2 %")
        .arg(fraction > 0 ? QStringLiteral("+") : QString())
        .arg(fraction * 100.0, 0, 'f', 1);
}

QString ms(double v)
{
    return QString::number(v, 'g', 4);
}
} // namespace

int CalibrationCommand::run(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(summary());
    const QCommandLineOption db(QStringLiteral("db"),
                                QStringLiteral("The workspace database (default: ACCELOPT_WORKSPACE_DB, else "
                                               "the per-user one)."),
                                QStringLiteral("PATH"));
    const QCommandLineOption host(QStringLiteral("host"),
                                  QStringLiteral("Only the measurements of this hardware host."),
                                  QStringLiteral("H"));
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Print JSON."));
    parser.addOptions({db, host, json});
    int status = 0;
    if (!SubcommandParser::parse(parser, QStringLiteral("accelopt calibration"), arguments, status))
        return status;
    if (!parser.positionalArguments().isEmpty()) {
        SubcommandParser::err() << "accelopt calibration: unexpected argument '"
                                << parser.positionalArguments().first()
                                << "' (options only: --host, --json)\n";
        return 2;
    }
    const QString path = parser.isSet(db) ? parser.value(db) : SessionStore::defaultPath();
    Calibration calibration;
    // Asking must not create a workspace: no file is no kernel measured on both.
    if (QFileInfo::exists(path)) {
        SessionStore store(path);
        if (!store.open()) {
            SubcommandParser::err() << "accelopt calibration: " << store.lastError() << "\n";
            return 1;
        }
        CalibrationQuery query(store.database());
        const QList<CalibrationRun> runs = query.runs();
        if (!query.lastError().isEmpty()) {
            SubcommandParser::err() << "accelopt calibration: could not read " << path << ": "
                                    << query.lastError() << "\n";
            return 1;
        }
        calibration = Calibration::fromRuns(runs, parser.value(host));
    }
    QTextStream out(stdout);
    if (parser.isSet(json)) {
        QJsonObject o = calibration.toJson();
        o.insert(QStringLiteral("host"), parser.value(host));
        out << QJsonDocument(o).toJson(QJsonDocument::Indented);
        return 0;
    }
    if (calibration.pairs().isEmpty()) {
        out << "no kernel measured on both nkisim and a hardware host"
            << (parser.isSet(host) ? QStringLiteral(" (%1)").arg(parser.value(host)) : QString()) << " in "
            << path << "\n"
            << "A session on a hardware host that evaluates kernels a session on nkisim evaluated (or the "
               "reverse) calibrates.\n";
        return 0;
    }
    out << "Per kernel (error = (nkisim - device) / device)\n";
    out << QStringLiteral("%1 %2 %3 %4 %5 %6 %7\n")
               .arg(QStringLiteral("kernel"), -10)
               .arg(QStringLiteral("task"), -20)
               .arg(QStringLiteral("target"), -6)
               .arg(QStringLiteral("class"), -8)
               .arg(QStringLiteral("nkisim ms"), 10)
               .arg(QStringLiteral("device ms"), 10)
               .arg(QStringLiteral("error"), 9);
    for (const CalibrationPair &p : calibration.pairs())
        out << QStringLiteral("%1 %2 %3 %4 %5 %6 %7  %8\n")
                   .arg(p.sourceHash.left(10), -10)
                   .arg(p.task.left(20), -20)
                   .arg(p.target, -6)
                   .arg(p.kernelClass, -8)
                   .arg(ms(p.predictedMs), 10)
                   .arg(ms(p.measuredMs), 10)
                   .arg(percent(p.error()), 9)
                   .arg(p.host);
    out << "\nPer kind of kernel\n";
    out << QStringLiteral("%1 %2 %3 %4 %5 %6\n")
               .arg(QStringLiteral("class"), -8)
               .arg(QStringLiteral("target"), -6)
               .arg(QStringLiteral("kernels"), 7)
               .arg(QStringLiteral("median |err|"), 12)
               .arg(QStringLiteral("worst |err|"), 11)
               .arg(QStringLiteral("margin"), 8);
    for (const CalibrationGroup &g : calibration.groups()) {
        const std::optional<double> m = g.rankingMargin();
        out << QStringLiteral("%1 %2 %3 %4 %5 %6\n")
                   .arg(g.kernelClass, -8)
                   .arg(g.target, -6)
                   .arg(g.kernels, 7)
                   .arg(QStringLiteral("%1 %").arg(g.medianAbsError * 100.0, 0, 'f', 1), 12)
                   .arg(QStringLiteral("%1 %").arg(g.worstAbsError * 100.0, 0, 'f', 1), 11)
                   .arg(m ? QStringLiteral("%1 %").arg(*m * 100.0, 0, 'f', 1)
                          : QStringLiteral("%1 %*").arg(Calibration::defaultMargin * 100.0, 0, 'f', 0),
                        8);
    }
    out << "margin: how far above the beam nkisim may put a kernel that could still enter it on the device; "
           "* the default, until two kernels of a kind are measured on both\n";
    return 0;
}
