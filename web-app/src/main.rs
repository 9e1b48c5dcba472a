//! The site's entry point: Trunk builds this binary (see `index.html` at the repository
//! root) and it mounts [`web_app::App`] into the page body.

fn main() {
    console_error_panic_hook::set_once();
    yew::Renderer::<web_app::App>::new().render();
}
