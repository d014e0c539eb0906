// Renders the application's SVG icon as the PNG sizes a desktop's icon theme wants (hicolor/NxN/apps), at
// build time, with the Qt SVG renderer the workbench already links, so the build needs no image tool.
// Usage: accelopt_rendericon ICON.svg OUT_DIR NAME SIZE... -> OUT_DIR/SIZExSIZE/apps/NAME.png

#include <QCoreApplication>
#include <QDir>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>

#include <cstdio>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() < 5) {
        std::fprintf(stderr, "usage: accelopt_rendericon ICON.svg OUT_DIR NAME SIZE...\n");
        return 2;
    }
    QSvgRenderer renderer(args.at(1));
    if (!renderer.isValid()) {
        std::fprintf(stderr, "accelopt_rendericon: cannot read %s\n", qPrintable(args.at(1)));
        return 1;
    }
    const QString name = args.at(3);
    for (const QString &sizeText : args.mid(4)) {
        bool ok = false;
        const int size = sizeText.toInt(&ok);
        if (!ok || size < 8 || size > 1024) {
            std::fprintf(stderr, "accelopt_rendericon: bad size %s\n", qPrintable(sizeText));
            return 2;
        }
        QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        renderer.render(&painter);
        painter.end();
        const QString dir = QDir(args.at(2)).filePath(QStringLiteral("%1x%1/apps").arg(size));
        const QString out = QDir(dir).filePath(name + QStringLiteral(".png"));
        if (!QDir().mkpath(dir) || !image.save(out, "PNG")) {
            std::fprintf(stderr, "accelopt_rendericon: cannot write %s\n", qPrintable(out));
            return 1;
        }
    }
    return 0;
}
