//! "Export SVG" and "Export PNG" for the picture inside an element: the live `<svg>` is
//! serialized as it is on screen (it carries its own styles); the PNG is that SVG drawn
//! on a canvas at twice its size.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ExportButtonsProps {
    /// The id of the element holding the `<svg>`.
    pub target: AttrValue,
    /// The file name without extension.
    pub name: AttrValue,
    /// What the picture is, for the buttons' accessible names.
    pub what: AttrValue,
}

#[function_component(ExportButtons)]
pub fn export_buttons(props: &ExportButtonsProps) -> Html {
    let svg = {
        let (target, name) = (props.target.clone(), props.name.clone());
        Callback::from(move |_: MouseEvent| export::svg(&target, &name))
    };
    let png = {
        let (target, name) = (props.target.clone(), props.name.clone());
        Callback::from(move |_: MouseEvent| export::png(&target, &name))
    };
    html! {
        <div class="export-buttons" role="group" aria-label={format!("Export the {}", props.what)}>
            <button type="button" class="export-svg" onclick={svg}
                aria-label={format!("Export the {} as SVG", props.what)}>{ "SVG" }</button>
            <button type="button" class="export-png" onclick={png}
                aria-label={format!("Export the {} as PNG", props.what)}>{ "PNG" }</button>
        </div>
    }
}

#[cfg(target_family = "wasm")]
mod export {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};
    use web_sys::{
        Blob, BlobPropertyBag, CanvasRenderingContext2d, Document, HtmlAnchorElement,
        HtmlCanvasElement, HtmlImageElement, Url, XmlSerializer,
    };

    fn document() -> Option<Document> {
        web_sys::window()?.document()
    }

    /// The serialized `<svg>` inside `target`, with its width and height.
    fn svg_text(target: &str) -> Option<(String, u32, u32)> {
        let el = document()?
            .get_element_by_id(target)?
            .query_selector("svg")
            .ok()??;
        let text = XmlSerializer::new().ok()?.serialize_to_string(&el).ok()?;
        let size = |a: &str| el.get_attribute(a).and_then(|v| v.parse::<f64>().ok());
        Some((text, size("width")? as u32, size("height")? as u32))
    }

    fn download(href: &str, file: &str) -> Option<()> {
        let a: HtmlAnchorElement = document()?.create_element("a").ok()?.dyn_into().ok()?;
        a.set_href(href);
        a.set_download(file);
        a.click();
        Some(())
    }

    pub fn svg(target: &str, name: &str) {
        let Some((text, _, _)) = svg_text(target) else {
            return;
        };
        let parts = js_sys::Array::of1(&JsValue::from_str(&text));
        let opts = BlobPropertyBag::new();
        opts.set_type("image/svg+xml");
        let Ok(blob) = Blob::new_with_str_sequence_and_options(&parts, &opts) else {
            return;
        };
        if let Ok(url) = Url::create_object_url_with_blob(&blob) {
            download(&url, &format!("{name}.svg"));
            // Revoked later: the download reads the blob after this returns.
            let revoke = Closure::once_into_js(move || {
                let _ = Url::revoke_object_url(&url);
            });
            if let Some(w) = web_sys::window() {
                let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(
                    revoke.unchecked_ref(),
                    10_000,
                );
            }
        }
    }

    pub fn png(target: &str, name: &str) {
        let Some((text, w, h)) = svg_text(target) else {
            return;
        };
        let Ok(img) = HtmlImageElement::new() else {
            return;
        };
        let file = format!("{name}.png");
        let loaded = img.clone();
        let onload = Closure::once_into_js(move || {
            let draw = || -> Option<()> {
                let scale = 2;
                let canvas: HtmlCanvasElement =
                    document()?.create_element("canvas").ok()?.dyn_into().ok()?;
                canvas.set_width(w * scale);
                canvas.set_height(h * scale);
                let ctx: CanvasRenderingContext2d =
                    canvas.get_context("2d").ok()??.dyn_into().ok()?;
                ctx.draw_image_with_html_image_element_and_dw_and_dh(
                    &loaded,
                    0.0,
                    0.0,
                    f64::from(w * scale),
                    f64::from(h * scale),
                )
                .ok()?;
                let url = canvas.to_data_url_with_type("image/png").ok()?;
                download(&url, &file)
            };
            draw();
        });
        img.set_onload(Some(onload.unchecked_ref()));
        let encoded: String = js_sys::encode_uri_component(&text).into();
        img.set_src(&format!("data:image/svg+xml;charset=utf-8,{encoded}"));
    }
}

#[cfg(not(target_family = "wasm"))]
mod export {
    pub fn svg(_: &str, _: &str) {}
    pub fn png(_: &str, _: &str) {}
}
