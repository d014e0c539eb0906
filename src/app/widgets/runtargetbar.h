#pragma once

#include "hosts/hostconfig.h"

#include <QToolBar>

class QComboBox;

// Where Benchmark and Optimize run, always in sight (as Qt Creator's kit selector is): the host, the Trainium
// generation and the parameter set. The choice persists in QSettings.
class RunTargetBar : public QToolBar
{
    Q_OBJECT
public:
    explicit RunTargetBar(QWidget *parent = nullptr);

    void setHosts(const QList<HostConfig> &hosts);
    QString host() const;
    QString target() const; // trn1, trn2
    QString size() const;   // full, small
    void setHost(const QString &name);
    void setTarget(const QString &target);
    void setSize(const QString &size);
    QComboBox *hostBox() const { return m_host; }
    QComboBox *targetBox() const { return m_target; }
    QComboBox *sizeBox() const { return m_size; }

private:
    void save() const;

    QComboBox *m_host;
    QComboBox *m_target;
    QComboBox *m_size;
};
