#pragma once

#include "llm/llmconfig.h"

#include <QDialog>
#include <memory>

namespace Ui {
class ModelsDialog;
}
class ApiKeyStore;
class ChatClient;
class QComboBox;

// Tools > Models…: the LLM endpoints (add from a preset, edit, remove, test with a real tiny call) and the
// models each serves, which endpoint's model serves each agent role (chosen from those that exist), and the
// price table. Edits the same llm.json as `accelopt models`; a key typed here goes to the system keychain
// through ApiKeyStore, or where there is none stays in memory for this session, never into that file.
class ModelsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ModelsDialog(const QString &configPath = LlmConfig::defaultPath(), QWidget *parent = nullptr);
    ~ModelsDialog() override;

    const LlmConfig &config() const { return m_config; }
    // Collects the form into the config and writes it; false (with the reason shown) when something is wrong.
    bool save();
    void addEndpoint(const QString &presetId);
    // The key typed for the current endpoint: to the keychain, else for this session (keyKept follows).
    void keepTypedKey();
    void testCurrentEndpoint();
    QString testResult() const;
    // What the dialog says about the current endpoint's key travelling over plain http://, and above the tabs
    // (tightened file modes, endpoints allowed to send their key in clear text).
    QString plainHttpWarning() const;
    QString problem() const;

Q_SIGNALS:
    void testFinished(bool ok);
    void keyKept(bool ok, const QString &message);

private:
    void showEndpoint(int row);
    void storeEndpoint(int row); // form -> m_config.endpoints[row]
    void refreshList();
    void loadRolesAndPrices();
    bool collectRolesAndPrices(QString *error);
    void addRoleRow(int row, AgentRole role, const ModelRoster::Member &member);
    void fillEndpointChoices(QComboBox *endpoints, const QString &chosen) const;
    void fillModelChoices(QComboBox *models, const QString &endpoint, const QString &chosen) const;
    void refreshRoleChoices(); // after the endpoints changed: the same choices, from the new lists
    void setProblem(const QString &text);
    void updatePlainHttpWarning();
    static QString plainHttpWarningFor(const Endpoint &endpoint);

    std::unique_ptr<Ui::ModelsDialog> m_ui;
    QString m_path;
    LlmConfig m_config;
    int m_current = -1;
    bool m_loading = false;
    ApiKeyStore *m_keys;
    ChatClient *m_testClient = nullptr;
    int m_keysPending = 0;         // typed keys on their way to the keychain
    bool m_acceptWhenKept = false; // OK was pressed meanwhile: close once they are kept
    quint64 m_testJob = 0; // a newer test makes an older one's answer stale
};
